package io.tcpsight.internal.model;

import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The project's one convention for a value that is not known: a getter returns it empty
 * ({@code Optional}, {@code OptionalLong}, {@code OptionalInt}). Fields may hold null and the
 * kernel's -1 may travel inside the sampling layer, but neither leaves a getter.
 */
public final class OptionalValues {
    private OptionalValues() {}

    public static OptionalLong orEmpty(Long value) {
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }

    public static OptionalInt orEmpty(Integer value) {
        return value == null ? OptionalInt.empty() : OptionalInt.of(value);
    }

    /** The kernel reports "not known" as -1 (or another negative). */
    public static OptionalLong unlessNegative(long value) {
        return value < 0 ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /** For a constructor that takes null for "not known". */
    public static Long orNull(OptionalLong value) {
        return value.isPresent() ? value.getAsLong() : null;
    }
}
