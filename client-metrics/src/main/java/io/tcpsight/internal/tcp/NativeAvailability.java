package io.tcpsight.internal.tcp;

import java.util.Optional;

/** Whether the JNI library loaded, for which platform, and if not, why. */
public final class NativeAvailability {
    private final boolean available;
    private final String platform;
    private final String reason;
    private final String advice;

    private NativeAvailability(boolean available, String platform, String reason, String advice) {
        this.available = available;
        this.platform = platform;
        this.reason = reason;
        this.advice = advice;
    }

    static NativeAvailability available(String platform) {
        return new NativeAvailability(true, platform, "loaded for " + platform, null);
    }

    static NativeAvailability unavailable(String platform, String reason) {
        return new NativeAvailability(false, platform, reason, null);
    }

    /** The same, with a line for the user to read once at start (a JVM that warned about the load). */
    NativeAvailability withAdvice(String line) {
        return new NativeAvailability(available, platform, reason, line);
    }

    /**
     * A line for the component to log once at its start when the library loaded but the JVM warned
     * about it (JEP 472, Java 24 and later, without --enable-native-access); empty otherwise.
     */
    public Optional<String> advice() {
        return Optional.ofNullable(advice);
    }

    public boolean isAvailable() {
        return available;
    }

    /** e.g. linux-x86_64. */
    public String platform() {
        return platform;
    }

    /** Why the library is unavailable, or which platform it was loaded for. */
    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return available ? "available (" + platform + ")" : "unavailable: " + reason;
    }
}
