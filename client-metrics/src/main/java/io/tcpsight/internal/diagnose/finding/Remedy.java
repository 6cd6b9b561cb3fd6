package io.tcpsight.internal.diagnose.finding;

import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/** What to change, exactly, and one sentence of why. */
public final class Remedy {
    private final List<Setting> settings;
    private final String why;

    public Remedy(List<Setting> settings, String why) {
        this.settings = Collections.unmodifiableList(settings);
        this.why = why;
    }

    public List<Setting> settings() {
        return settings;
    }

    public String why() {
        return why;
    }

    public String describe() {
        return settings.stream().map(Setting::describe).collect(Collectors.joining(", ")) + ": " + why;
    }
}
