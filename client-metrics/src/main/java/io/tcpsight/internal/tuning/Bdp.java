package io.tcpsight.internal.tuning;

/** The bandwidth-delay product: what every sizing here starts from. */
public final class Bdp {
    private Bdp() {}

    /** The bytes in flight that keep a path of this RTT busy at this rate. */
    public static long bytes(long rttMicros, double bytesPerSecond) {
        return (long) Math.ceil(rttMicros * bytesPerSecond / 1e6);
    }
}
