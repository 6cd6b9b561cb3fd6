package io.tcpsight.internal.diagnose.finding;

/**
 * The arithmetic every finding's figures share: a window of W bytes over a round trip of r moves
 * at most W / r, and rates are shown in Mbit/s.
 */
public final class Rates {
    private Rates() {}

    /** The most a window of {@code windowBytes} moves per second over a round trip of {@code rttMicros}. */
    public static double ceilingBytesPerSecond(long windowBytes, long rttMicros) {
        return windowBytes / (rttMicros / 1e6);
    }

    public static double mbit(double bytesPerSecond) {
        return bytesPerSecond * 8 / 1e6;
    }
}
