package io.tcpsight.internal.tcp;

/** A socket's buffer and segment settings as the kernel reports them (not as requested). */
public final class SocketBufferState {
    private final int receiveBufferBytes;
    private final int sendBufferBytes;
    private final int windowClampBytes;
    private final int maxSegmentBytes;
    private final boolean noDelay;
    private final String congestionControl;

    SocketBufferState(
            int receiveBufferBytes,
            int sendBufferBytes,
            int windowClampBytes,
            int maxSegmentBytes,
            boolean noDelay,
            String congestionControl) {
        this.receiveBufferBytes = receiveBufferBytes;
        this.sendBufferBytes = sendBufferBytes;
        this.windowClampBytes = windowClampBytes;
        this.maxSegmentBytes = maxSegmentBytes;
        this.noDelay = noDelay;
        this.congestionControl = congestionControl;
    }

    /** SO_RCVBUF: twice what the application asked for, capped by net.core.rmem_max. */
    public int receiveBufferBytes() {
        return receiveBufferBytes;
    }

    /** SO_SNDBUF: twice what the application asked for, capped by net.core.wmem_max. */
    public int sendBufferBytes() {
        return sendBufferBytes;
    }

    /** TCP_WINDOW_CLAMP: the largest window this socket will ever advertise. */
    public int windowClampBytes() {
        return windowClampBytes;
    }

    /** TCP_MAXSEG. */
    public int maxSegmentBytes() {
        return maxSegmentBytes;
    }

    /** TCP_NODELAY. */
    public boolean noDelay() {
        return noDelay;
    }

    /** TCP_CONGESTION, e.g. cubic or bbr. */
    public String congestionControl() {
        return congestionControl;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof SocketBufferState)) {
            return false;
        }
        SocketBufferState that = (SocketBufferState) other;
        return receiveBufferBytes == that.receiveBufferBytes
                && sendBufferBytes == that.sendBufferBytes
                && windowClampBytes == that.windowClampBytes
                && maxSegmentBytes == that.maxSegmentBytes
                && noDelay == that.noDelay
                && congestionControl.equals(that.congestionControl);
    }

    @Override
    public int hashCode() {
        // by hand: Objects.hash would box six values for every read of every connection's buffers
        int hash = receiveBufferBytes;
        hash = 31 * hash + sendBufferBytes;
        hash = 31 * hash + windowClampBytes;
        hash = 31 * hash + maxSegmentBytes;
        hash = 31 * hash + (noDelay ? 1 : 0);
        return 31 * hash + congestionControl.hashCode();
    }

    @Override
    public String toString() {
        return "SocketBufferState{SO_RCVBUF=" + receiveBufferBytes + ", SO_SNDBUF=" + sendBufferBytes
                + ", TCP_WINDOW_CLAMP=" + windowClampBytes + ", TCP_MAXSEG=" + maxSegmentBytes
                + ", TCP_NODELAY=" + noDelay + ", TCP_CONGESTION=" + congestionControl + "}";
    }
}
