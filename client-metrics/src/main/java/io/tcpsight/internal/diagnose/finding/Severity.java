package io.tcpsight.internal.diagnose.finding;

import java.util.Locale;

/** How bad a finding is; the doctor exits 1 on warn or critical. Ordered from least to worst. */
public enum Severity {
    INFO,
    WARN,
    CRITICAL;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
