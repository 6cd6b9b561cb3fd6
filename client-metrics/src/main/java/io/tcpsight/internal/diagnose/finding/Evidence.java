package io.tcpsight.internal.diagnose.finding;

import java.util.Locale;

/** One number a rule used, with its unit (ms, bytes, bytes/s, Mbit/s, ratio, count, ...). */
public final class Evidence {
    private final String name;
    private final Object value;
    private final String unit;

    public Evidence(String name, Object value, String unit) {
        if (!(value instanceof Number || value instanceof String)) {
            // an Optional here would print as "Optional[...]" in every finding
            throw new IllegalArgumentException("evidence " + name + " must be a Number or a String, got " + value);
        }
        this.name = name;
        this.value = value;
        this.unit = unit;
    }

    public String name() {
        return name;
    }

    /** A Number, or a String for facts such as a kernel release or option list. */
    public Object value() {
        return value;
    }

    public String unit() {
        return unit;
    }

    /** "rtt=100.2 ms". */
    public String describe() {
        String number = value instanceof Double || value instanceof Float
                ? String.format(Locale.ROOT, "%.3g", ((Number) value).doubleValue())
                : String.valueOf(value);
        return name + "=" + number + (unit.isEmpty() ? "" : " " + unit);
    }

    /** The RTT as evidence, in milliseconds. */
    public static Evidence rtt(long rttMicros) {
        return new Evidence("rtt", rttMicros / 1000.0, "ms");
    }
}
