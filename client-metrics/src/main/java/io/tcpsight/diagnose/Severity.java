package io.tcpsight.diagnose;

import java.util.Locale;

public enum Severity {
    INFO,
    WARN,
    CRITICAL;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
