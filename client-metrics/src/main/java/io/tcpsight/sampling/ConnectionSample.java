package io.tcpsight.sampling;

import io.tcpsight.model.IntervalStats;
import io.tcpsight.tcp.SocketBufferState;
import io.tcpsight.tcp.TcpOptions;
import io.tcpsight.tcp.TcpState;

/** What one sample saw of one connection, and the interval since the previous sample. */
public final class ConnectionSample {
    final long nanoTime;
    final TcpState state;
    final long rttMicros;
    final long minRttMicros;
    final TcpOptions options;
    final int sndWindowScale;
    final int rcvWindowScale;
    final long sndCwnd;
    final long sndWindowBytes;
    final long rcvWindowBytes;
    final long deliveryRateBytesPerSecond;
    final long totalRetrans;
    final long busyMicros;
    final long rwndLimitedMicros;
    final long sndbufLimitedMicros;
    final long segmentsOut;
    final long bytesAcked;
    final long bytesReceived;
    final SocketBufferState buffers;
    final IntervalStats interval;

    ConnectionSample(long nanoTime, TcpState state, long rttMicros, long minRttMicros, TcpOptions options, int sndWindowScale,
            int rcvWindowScale, long sndCwnd, long sndWindowBytes, long rcvWindowBytes, long deliveryRateBytesPerSecond, long totalRetrans,
            long busyMicros, long rwndLimitedMicros, long sndbufLimitedMicros, long segmentsOut, long bytesAcked, long bytesReceived,
            SocketBufferState buffers, IntervalStats interval) {
        this.nanoTime = nanoTime;
        this.state = state;
        this.rttMicros = rttMicros;
        this.minRttMicros = minRttMicros;
        this.options = options;
        this.sndWindowScale = sndWindowScale;
        this.rcvWindowScale = rcvWindowScale;
        this.sndCwnd = sndCwnd;
        this.sndWindowBytes = sndWindowBytes;
        this.rcvWindowBytes = rcvWindowBytes;
        this.deliveryRateBytesPerSecond = deliveryRateBytesPerSecond;
        this.totalRetrans = totalRetrans;
        this.busyMicros = busyMicros;
        this.rwndLimitedMicros = rwndLimitedMicros;
        this.sndbufLimitedMicros = sndbufLimitedMicros;
        this.segmentsOut = segmentsOut;
        this.bytesAcked = bytesAcked;
        this.bytesReceived = bytesReceived;
        this.buffers = buffers;
        this.interval = interval;
    }

    public TcpState state() {
        return state;
    }

    public long rttMicros() {
        return rttMicros;
    }

    /** -1 when the kernel does not report it. */
    public long minRttMicros() {
        return minRttMicros;
    }

    public TcpOptions options() {
        return options;
    }

    public int sndWindowScale() {
        return sndWindowScale;
    }

    public int rcvWindowScale() {
        return rcvWindowScale;
    }

    public long sndCwnd() {
        return sndCwnd;
    }

    /** The peer's advertised window; -1 when the kernel does not report it (before 5.4). */
    public long sndWindowBytes() {
        return sndWindowBytes;
    }

    /** Our advertised window; -1 before 6.2. */
    public long rcvWindowBytes() {
        return rcvWindowBytes;
    }

    /** -1 when not reported. */
    public long deliveryRateBytesPerSecond() {
        return deliveryRateBytesPerSecond;
    }

    public long totalRetrans() {
        return totalRetrans;
    }

    public long bytesAcked() {
        return bytesAcked;
    }

    public long bytesReceived() {
        return bytesReceived;
    }

    /** The last buffer state read (refreshed every few samples); may be null. */
    public SocketBufferState buffers() {
        return buffers;
    }

    /** null on a connection's first sample. */
    public IntervalStats interval() {
        return interval;
    }
}
