package io.tcpsight.internal.sampling;

import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.model.OptionalValues;
import io.tcpsight.internal.tcp.SocketBufferState;
import io.tcpsight.internal.tcp.TcpOptions;
import io.tcpsight.internal.tcp.TcpState;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What one sample saw of one connection, and the interval since the previous sample. The kernel's
 * 32-bit fields are kept in ints (-1 unknown, larger values held at the int's maximum), so that
 * a broker's 100,000 latest samples cost 4 MB less. The counters kept only to take the next sample's
 * rises from (the busy and limited times, the segments sent) keep their low 32 bits and a bit that says
 * they are known; the state and options their codes: a sample is 112 bytes, not 144.
 */
public final class ConnectionSample {
    final long nanoTime;
    private final byte stateCode;
    final int rttMicros;
    final int minRttMicros;
    private final byte optionBits;
    /** The send window's scale in the low four bits, the receive window's in the high (the kernel's are four bits). */
    private final byte windowScales;

    final int sndCwnd;
    final int sndMssBytes;
    final int sndWindowBytes;
    final int rcvWindowBytes;
    /**
     * A float: a rate known to one part in ten million is as good as the kernel's own estimate, and -1 (unknown) is
     * exact. With the window scales in one byte, the sample is 112 bytes, not 120.
     */
    private final float deliveryRateBytesPerSecond;

    final int totalRetrans;
    /*
     * The low 32 bits of the kernel's busy and limited times (64-bit microsecond counters) and of its
     * segments sent (32 bits there too): only their rises are ever read, and a rise is taken modulo 2^32. Of
     * microseconds that is 71 minutes, more than any interval's rise: a connection carried unread had nothing
     * moved until the round that read it, so its rises are at most one round's (an hour at the longest
     * tcpsight.sample.interval.ms).
     */
    private final int busyMicrosLow;
    private final int rwndLimitedMicrosLow;
    private final int sndbufLimitedMicrosLow;
    private final int segmentsOutLow;
    /** Which of the four above the kernel reported (KNOWN_ bits); an unknown one counts as no rise. */
    private final byte known;

    private static final int KNOWN_BUSY = 1;
    private static final int KNOWN_RWND_LIMITED = 2;
    private static final int KNOWN_SNDBUF_LIMITED = 4;
    private static final int KNOWN_SEGMENTS_OUT = 8;
    final long bytesAcked;
    final long bytesReceived;
    final int unreadBytes;
    final int unackedBytes;
    final SocketBufferState buffers;
    /** The interval's length; 0 on a connection's first sample, which has none. */
    final long intervalNanos;
    /**
     * What rose in the interval; null where nothing did, so that the sample of an idle connection
     * (most of a big broker's) keeps no object for it.
     */
    final IntervalStats moved;

    private ConnectionSample(Builder b) {
        nanoTime = b.nanoTime;
        stateCode = (byte) (b.state == null ? TcpState.UNKNOWN.code() : b.state.code());
        rttMicros = narrow(b.rttMicros);
        minRttMicros = narrow(b.minRttMicros);
        optionBits = (byte) (b.options == null ? 0 : b.options.bits());
        windowScales = (byte) ((b.sndWindowScale & 0xF) | (b.rcvWindowScale & 0xF) << 4);
        sndCwnd = narrow(b.sndCwnd);
        sndMssBytes = narrow(b.sndMssBytes);
        sndWindowBytes = narrow(b.sndWindowBytes);
        rcvWindowBytes = narrow(b.rcvWindowBytes);
        deliveryRateBytesPerSecond = b.deliveryRateBytesPerSecond;
        totalRetrans = narrow(b.totalRetrans);
        busyMicrosLow = (int) b.busyMicros;
        rwndLimitedMicrosLow = (int) b.rwndLimitedMicros;
        sndbufLimitedMicrosLow = (int) b.sndbufLimitedMicros;
        segmentsOutLow = (int) b.segmentsOut;
        known = (byte) ((b.busyMicros >= 0 ? KNOWN_BUSY : 0)
                | (b.rwndLimitedMicros >= 0 ? KNOWN_RWND_LIMITED : 0)
                | (b.sndbufLimitedMicros >= 0 ? KNOWN_SNDBUF_LIMITED : 0)
                | (b.segmentsOut >= 0 ? KNOWN_SEGMENTS_OUT : 0));
        bytesAcked = b.bytesAcked;
        bytesReceived = b.bytesReceived;
        unreadBytes = narrow(b.unreadBytes);
        unackedBytes = narrow(b.unackedBytes);
        buffers = b.buffers;
        long from = b.previous == null ? 0 : Math.max(b.previous.nanoTime, b.intervalFromNanos);
        intervalNanos = b.previous == null || nanoTime <= from ? 0 : nanoTime - from;
        moved = intervalNanos == 0 ? null : risesSince(b.previous);
    }

    /** -1 (unknown) and the kernel's 32-bit values as they are; anything above an int's maximum held there. */
    private static int narrow(long value) {
        return (int) Math.max(-1, Math.min(Integer.MAX_VALUE, value));
    }

    static Builder at(long nanoTime) {
        return new Builder(nanoTime);
    }

    /** What the kernel's time counters may run ahead of the sampler's clock over one interval. */
    private static final long CLOCK_SLACK_MICROS = 1_000_000;

    /** The counters' rises since the previous sample; null where none rose. */
    private IntervalStats risesSince(ConnectionSample before) {
        // a time counter rises by no more than the interval it is a share of (and the kernel's jiffies)
        long mostMicros = intervalNanos / 1_000 + CLOCK_SLACK_MICROS;
        long busy = microsRise(KNOWN_BUSY, busyMicrosLow, before, before.busyMicrosLow, mostMicros);
        long rwndLimited =
                microsRise(KNOWN_RWND_LIMITED, rwndLimitedMicrosLow, before, before.rwndLimitedMicrosLow, mostMicros);
        long sndbufLimited = microsRise(
                KNOWN_SNDBUF_LIMITED, sndbufLimitedMicrosLow, before, before.sndbufLimitedMicrosLow, mostMicros);
        long retransmitted = rise(totalRetrans, before.totalRetrans);
        // segs_out is 32 bits in the kernel and wraps
        long segments = lowRise(KNOWN_SEGMENTS_OUT, segmentsOutLow, before, before.segmentsOutLow);
        long acked = rise(bytesAcked, before.bytesAcked);
        long received = rise(bytesReceived, before.bytesReceived);
        if ((busy | rwndLimited | sndbufLimited | retransmitted | segments | acked | received) == 0) {
            return null;
        }
        return IntervalStats.over(intervalNanos / 1e9)
                .busyMicros(busy)
                .rwndLimitedMicros(rwndLimited)
                .sndbufLimitedMicros(sndbufLimited)
                .retransmittedSegments(retransmitted)
                .segmentsOut(segments)
                .bytesAcked(acked)
                .bytesReceived(received)
                .build();
    }

    /**
     * A time counter's rise: no more than {@code mostMicros}, the interval's own length and a second for
     * the kernel's clock, which counts in jiffies. More can only be a counter that fell (a socket replaced
     * under the same descriptor), which its low 32 bits would read as some 71 minutes: no rise, as a reset
     * is for the 64-bit counters.
     */
    private long microsRise(int bit, int now, ConnectionSample before, int then, long mostMicros) {
        long rise = lowRise(bit, now, before, then);
        return rise > mostMicros ? 0 : rise;
    }

    /** The rise of a counter kept by its low 32 bits, modulo 2^32; 0 unless both samples know it. */
    private long lowRise(int bit, int now, ConnectionSample before, int then) {
        return (known & before.known & bit) == 0 ? 0 : (now - then) & 0xFFFF_FFFFL;
    }

    /** Whether the kernel reported this many segments sent for this sample (compared by their low 32 bits, as kept). */
    boolean sentSegments(long segmentsOut) {
        return (known & KNOWN_SEGMENTS_OUT) != 0 && segmentsOut >= 0 && (int) segmentsOut == segmentsOutLow;
    }

    /** An unknown (-1) or reset counter counts as no rise. */
    private static long rise(long now, long before) {
        return now < 0 || before < 0 || now < before ? 0 : now - before;
    }

    public TcpState state() {
        return TcpState.of(stateCode);
    }

    public long rttMicros() {
        return rttMicros;
    }

    /** Empty when the kernel does not report it, or before the first RTT sample. */
    public OptionalLong minRttMicros() {
        return OptionalValues.unlessNegative(minRttMicros);
    }

    /**
     * The path's round trip: min_rtt where the kernel has it. The smoothed RTT of a mostly idle
     * request/response connection is inflated by delayed ACKs (11 ms on loopback was measured,
     * against a min_rtt of 0.02 ms), and would make every short path look long.
     */
    public long pathRttMicros() {
        return minRttMicros > 0 ? minRttMicros : rttMicros;
    }

    public TcpOptions options() {
        return TcpOptions.of(optionBits);
    }

    public int sndWindowScale() {
        return windowScales & 0xF;
    }

    public int rcvWindowScale() {
        return windowScales >> 4 & 0xF;
    }

    public long sndCwnd() {
        return sndCwnd;
    }

    /** The segment size this end sends (tcpi_snd_mss); 0 before the handshake. */
    public long sndMssBytes() {
        return sndMssBytes;
    }

    /** The peer's advertised window; empty when the kernel does not report it (before 5.4). */
    public OptionalLong sndWindowBytes() {
        return OptionalValues.unlessNegative(sndWindowBytes);
    }

    /** Our advertised window; empty before 6.2. */
    public OptionalLong rcvWindowBytes() {
        return OptionalValues.unlessNegative(rcvWindowBytes);
    }

    public OptionalLong deliveryRateBytesPerSecond() {
        return OptionalValues.unlessNegative((long) deliveryRateBytesPerSecond);
    }

    public long totalRetrans() {
        return totalRetrans;
    }

    /** Empty when the kernel does not report it. */
    public OptionalLong bytesAcked() {
        return OptionalValues.unlessNegative(bytesAcked);
    }

    public OptionalLong bytesReceived() {
        return OptionalValues.unlessNegative(bytesReceived);
    }

    /** Bytes received that the application has not read yet (SIOCINQ); empty when unknown. */
    public OptionalLong unreadBytes() {
        return OptionalValues.unlessNegative(unreadBytes);
    }

    /** Bytes written that the peer has not acknowledged yet (SIOCOUTQ); empty when unknown. */
    public OptionalLong unackedBytes() {
        return OptionalValues.unlessNegative(unackedBytes);
    }

    /** The last buffer state read (refreshed every few samples); empty until one was read. */
    public Optional<SocketBufferState> buffers() {
        return Optional.ofNullable(buffers);
    }

    /** When the interval began (System.nanoTime): the previous sample, or later where it was carried; empty with none. */
    public OptionalLong intervalStartNanos() {
        return intervalNanos == 0 ? OptionalLong.empty() : OptionalLong.of(nanoTime - intervalNanos);
    }

    /**
     * Whether any of the kernel's counters rose in the interval: false on a first sample and on an idle
     * connection's, where a round's pass over every connection need not ask for the interval.
     */
    public boolean movedInInterval() {
        return moved != null;
    }

    /** Empty on a connection's first sample; an interval in which nothing rose is made when asked for. */
    public Optional<IntervalStats> interval() {
        if (intervalNanos == 0) {
            return Optional.empty();
        }
        return Optional.of(
                moved != null ? moved : IntervalStats.over(intervalNanos / 1e9).build());
    }

    /** Named fields for one sample; counters the kernel does not report stay -1. */
    static final class Builder {
        private final long nanoTime;
        private TcpState state;
        private long rttMicros;
        private long minRttMicros = -1;
        private TcpOptions options;
        private int sndWindowScale;
        private int rcvWindowScale;
        private long sndCwnd;
        private long sndMssBytes;
        private long sndWindowBytes = -1;
        private long rcvWindowBytes = -1;
        private long deliveryRateBytesPerSecond = -1;
        private long totalRetrans;
        private long busyMicros = -1;
        private long rwndLimitedMicros = -1;
        private long sndbufLimitedMicros = -1;
        private long segmentsOut = -1;
        private long bytesAcked = -1;
        private long bytesReceived = -1;
        private long unreadBytes = -1;
        private long unackedBytes = -1;
        private SocketBufferState buffers;
        private ConnectionSample previous;
        private long intervalFromNanos = Long.MIN_VALUE; // System.nanoTime may be below 0

        private Builder(long nanoTime) {
            this.nanoTime = nanoTime;
        }

        Builder state(TcpState value) {
            state = value;
            return this;
        }

        Builder rtt(long smoothedMicros, long minMicros) {
            rttMicros = smoothedMicros;
            minRttMicros = minMicros;
            return this;
        }

        Builder options(TcpOptions value) {
            options = value;
            return this;
        }

        Builder windowScales(int send, int receive) {
            sndWindowScale = send;
            rcvWindowScale = receive;
            return this;
        }

        Builder windows(long congestionSegments, long sendBytes, long receiveBytes) {
            sndCwnd = congestionSegments;
            sndWindowBytes = sendBytes;
            rcvWindowBytes = receiveBytes;
            return this;
        }

        Builder sndMss(long bytes) {
            sndMssBytes = bytes;
            return this;
        }

        Builder deliveryRate(long bytesPerSecond) {
            deliveryRateBytesPerSecond = bytesPerSecond;
            return this;
        }

        Builder limitedTimes(long busy, long receiveWindow, long sendBuffer) {
            busyMicros = busy;
            rwndLimitedMicros = receiveWindow;
            sndbufLimitedMicros = sendBuffer;
            return this;
        }

        Builder counters(long retransmits, long segmentsSent, long acked, long received) {
            totalRetrans = retransmits;
            segmentsOut = segmentsSent;
            bytesAcked = acked;
            bytesReceived = received;
            return this;
        }

        /** SIOCINQ and SIOCOUTQ, read with tcp_info; empty when unknown. */
        Builder queues(OptionalLong unread, OptionalLong unacked) {
            unreadBytes = unread.orElse(-1); // held compactly, as the kernel's fields are (see narrow)
            unackedBytes = unacked.orElse(-1);
            return this;
        }

        Builder buffers(SocketBufferState value) {
            buffers = value;
            return this;
        }

        /** The connection's previous sample, from which the interval is computed; null on the first. */
        Builder after(ConnectionSample value) {
            previous = value;
            return this;
        }

        /**
         * The interval counts from {@code nanoTime} where that is later than the previous sample: a
         * connection left unread since, on which nothing moved until then, held the previous sample's
         * counters at that time.
         */
        Builder intervalFrom(long nanoTime) {
            intervalFromNanos = nanoTime;
            return this;
        }

        ConnectionSample build() {
            return new ConnectionSample(this);
        }
    }
}
