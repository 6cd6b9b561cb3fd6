package io.tcpsight.internal.config;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** One tcpsight setting: its key, type, default, allowed range and meaning. */
public final class SettingKey<T> {
    private final String name;
    private final T defaultValue;
    private final String allowed;
    private final String documentation;
    private final Function<String, T> parser;

    private SettingKey(String name, T defaultValue, String allowed, String documentation, Function<String, T> parser) {
        this.name = name;
        this.defaultValue = defaultValue;
        this.allowed = allowed;
        this.documentation = documentation;
        this.parser = parser;
    }

    public static SettingKey<Long> wholeNumber(
            String name, long defaultValue, long min, long max, String unit, String documentation) {
        String allowed = "a whole number of " + unit + " from " + min + " to " + max;
        return new SettingKey<>(name, defaultValue, allowed, documentation, text -> {
            long value = Long.parseLong(text.trim());
            if (value < min || value > max) {
                throw new IllegalArgumentException();
            }
            return value;
        });
    }

    public static SettingKey<Double> decimal(
            String name, double defaultValue, double min, double max, String unit, String documentation) {
        String allowed = "a number" + (unit.isEmpty() ? "" : " of " + unit) + " from " + trim(min) + " to " + trim(max);
        return new SettingKey<>(name, defaultValue, allowed, documentation, text -> {
            double value = Double.parseDouble(text.trim());
            if (!(value >= min && value <= max)) {
                throw new IllegalArgumentException();
            }
            return value;
        });
    }

    public static SettingKey<Boolean> flag(String name, boolean defaultValue, String documentation) {
        return new SettingKey<>(name, defaultValue, "true or false", documentation, text -> {
            String value = text.trim().toLowerCase(Locale.ROOT);
            if (!value.equals("true") && !value.equals("false")) {
                throw new IllegalArgumentException();
            }
            return Boolean.valueOf(value);
        });
    }

    /** One of a fixed set of words, compared without regard to case; the canonical spelling is returned. */
    public static SettingKey<String> choice(
            String name, String defaultValue, List<String> choices, String documentation) {
        return new SettingKey<>(name, defaultValue, "one of " + String.join(", ", choices), documentation, text -> {
            for (String choice : choices) {
                if (choice.equalsIgnoreCase(text.trim())) {
                    return choice;
                }
            }
            throw new IllegalArgumentException();
        });
    }

    /** Free text; empty means "not set" and gives the default. */
    public static SettingKey<String> text(String name, String defaultValue, String allowed, String documentation) {
        return new SettingKey<>(
                name, defaultValue, allowed, documentation, text -> text.trim().isEmpty() ? defaultValue : text.trim());
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }

    public String name() {
        return name;
    }

    /** The key without the tcpsight. prefix, as agent arguments write it. */
    public String shortName() {
        return name.substring("tcpsight.".length());
    }

    public T defaultValue() {
        return defaultValue;
    }

    /** The default as documentation writes it: whole numbers without ".0". */
    public String defaultText() {
        return defaultValue instanceof Double ? trim((Double) defaultValue) : String.valueOf(defaultValue);
    }

    public String allowed() {
        return allowed;
    }

    public String documentation() {
        return documentation;
    }

    /** @throws InvalidSettingException naming the key, the value and what is allowed */
    public T parse(Object raw) {
        if (raw == null) {
            return defaultValue;
        }
        try {
            return parser.apply(String.valueOf(raw));
        } catch (RuntimeException invalid) {
            throw new InvalidSettingException(name, raw, allowed);
        }
    }
}
