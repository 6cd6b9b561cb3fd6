package io.tcpsight.internal.tcp;

import java.util.Optional;

/** Whether the JNI library loaded, for which platform, and if not, why. */
public final class NativeAvailability {
    private final boolean available;
    private final String platform;
    private final String reason;
    private final String advice;
    private final String runtime;

    private NativeAvailability(boolean available, String platform, String reason, String advice, String runtime) {
        this.available = available;
        this.platform = platform;
        this.reason = reason;
        this.advice = advice;
        this.runtime = runtime;
    }

    static NativeAvailability available(String platform) {
        return new NativeAvailability(true, platform, "loaded for " + platform, null, platform);
    }

    /** Unavailable on this JVM's platform, which the line names in words ({@link RuntimePlatform#describe()}). */
    static NativeAvailability unavailable(String platform, String reason) {
        return unavailable(platform, reason, RuntimePlatform.describe());
    }

    static NativeAvailability unavailable(String platform, String reason, String runtime) {
        return new NativeAvailability(false, platform, reason, null, runtime);
    }

    /** The same, with a line for the user to read once at start (a JVM that warned about the load). */
    NativeAvailability withAdvice(String line) {
        return new NativeAvailability(available, platform, reason, line, runtime);
    }

    /**
     * The one line a component logs at its start when the library is unavailable: what the JVM runs
     * on (operating system, architecture, C library), why, what to do, and what the component goes
     * without: "tcpsight agent: no TCP_INFO on Linux riscv64, glibc: ...; without it ...".
     *
     * @param component who speaks, e.g. "tcpsight agent"
     * @param without what the component does not do without TCP_INFO, and what it still does
     */
    public String unavailableLine(String component, String without) {
        return component + ": no TCP_INFO on " + runtime + ": " + reason + "; without it " + without;
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
        return available ? "available (" + platform + ")" : "unavailable on " + runtime + ": " + reason;
    }
}
