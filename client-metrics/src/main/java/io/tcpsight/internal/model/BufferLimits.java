package io.tcpsight.internal.model;

/** The three values of {@code net.ipv4.tcp_rmem} or {@code tcp_wmem}: min, default, max bytes. */
public final class BufferLimits {
    private final long minBytes;
    private final long defaultBytes;
    private final long maxBytes;

    public BufferLimits(long minBytes, long defaultBytes, long maxBytes) {
        this.minBytes = minBytes;
        this.defaultBytes = defaultBytes;
        this.maxBytes = maxBytes;
    }

    public long minBytes() {
        return minBytes;
    }

    public long defaultBytes() {
        return defaultBytes;
    }

    /** The most autotuning will ever grow a buffer to. */
    public long maxBytes() {
        return maxBytes;
    }

    @Override
    public String toString() {
        return minBytes + " " + defaultBytes + " " + maxBytes;
    }
}
