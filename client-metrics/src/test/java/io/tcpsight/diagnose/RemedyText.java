package io.tcpsight.diagnose;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** A finding's severity and remedy as one line, for tables of rules written out by hand. */
final class RemedyText {
    private RemedyText() {}

    /**
     * "severity scope:library:key=value[note] ..." of every setting, in order, or "none"; "?" for a
     * key in words; a note as [peer host] (a sysctl on the other end's host) or as {@code otherNote}.
     */
    static String describe(Optional<Finding> finding, String otherNote) {
        return finding.map(f -> f.severity().label() + " " + settings(f.remedy().settings(), otherNote))
                .orElse("none");
    }

    /** "scope:library:key=value[note] ..." of the settings, in order. */
    static String settings(List<Setting> settings, String otherNote) {
        return settings.stream()
                .map(setting -> setting.scope() + ":"
                        + setting.library().map(library -> library + ":").orElse("")
                        + setting.key().orElse("?") + "=" + setting.value()
                        + (setting.note().isEmpty()
                                ? ""
                                : setting.note().get().startsWith("on ") ? "[peer host]" : otherNote))
                .collect(Collectors.joining(" "));
    }
}
