package io.tcpsight.internal.diagnose.connection;

import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Setting;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** A finding's severity and remedy as one line, for tables of rules written out by hand. */
final class RemedyText {
    private static final Pattern ON_BROKER = Pattern.compile("on broker (\\d+)");

    private RemedyText() {}

    /**
     * "severity scope:library:key=value[note] ..." of every setting, in order, or "none"; "?" for a
     * key in words; a note as [broker N] (a key for that broker), [peer host] (a sysctl on the other
     * end's host) or as {@code otherNote}.
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
                        + (setting.note().isEmpty() ? "" : note(setting.note().get(), otherNote)))
                .collect(Collectors.joining(" "));
    }

    private static String note(String note, String otherNote) {
        Matcher broker = ON_BROKER.matcher(note);
        if (broker.lookingAt()) {
            return "[broker " + broker.group(1) + "]";
        }
        return note.startsWith("on ") ? "[peer host]" : otherNote;
    }
}
