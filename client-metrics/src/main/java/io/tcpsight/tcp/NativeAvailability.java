package io.tcpsight.tcp;

/** Whether the JNI library loaded, for which platform, and if not, why. */
public final class NativeAvailability {
    private final boolean available;
    private final String platform;
    private final String reason;

    private NativeAvailability(boolean available, String platform, String reason) {
        this.available = available;
        this.platform = platform;
        this.reason = reason;
    }

    static NativeAvailability available(String platform) {
        return new NativeAvailability(true, platform, "loaded for " + platform);
    }

    static NativeAvailability unavailable(String platform, String reason) {
        return new NativeAvailability(false, platform, reason);
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
