package io.tcpsight.internal.model;

/**
 * What a connection did between two samples: the rates and ratios the rules read. Fractions
 * are of busy time (the time the connection had data to send), between 0 and 1.
 */
public final class IntervalStats {
    private final double seconds;
    private final long busyMicros;
    private final long rwndLimitedMicros;
    private final long sndbufLimitedMicros;
    private final long retransmittedSegments;
    private final long segmentsOut;
    private final long bytesAcked;
    private final long bytesReceived;

    private IntervalStats(Builder built) {
        this.seconds = built.seconds;
        this.busyMicros = built.busyMicros;
        this.rwndLimitedMicros = built.rwndLimitedMicros;
        this.sndbufLimitedMicros = built.sndbufLimitedMicros;
        this.retransmittedSegments = built.retransmittedSegments;
        this.segmentsOut = built.segmentsOut;
        this.bytesAcked = built.bytesAcked;
        this.bytesReceived = built.bytesReceived;
    }

    /** An interval of this many seconds in which nothing happened; each rise is added by name. */
    public static Builder over(double seconds) {
        return new Builder(seconds);
    }

    /** The rises of the kernel's counters between two samples, by name. */
    public static final class Builder {
        private final double seconds;
        private long busyMicros;
        private long rwndLimitedMicros;
        private long sndbufLimitedMicros;
        private long retransmittedSegments;
        private long segmentsOut;
        private long bytesAcked;
        private long bytesReceived;

        private Builder(double seconds) {
            this.seconds = seconds;
        }

        public Builder busyMicros(long value) {
            busyMicros = value;
            return this;
        }

        public Builder rwndLimitedMicros(long value) {
            rwndLimitedMicros = value;
            return this;
        }

        public Builder sndbufLimitedMicros(long value) {
            sndbufLimitedMicros = value;
            return this;
        }

        public Builder retransmittedSegments(long value) {
            retransmittedSegments = value;
            return this;
        }

        public Builder segmentsOut(long value) {
            segmentsOut = value;
            return this;
        }

        public Builder bytesAcked(long value) {
            bytesAcked = value;
            return this;
        }

        public Builder bytesReceived(long value) {
            bytesReceived = value;
            return this;
        }

        public IntervalStats build() {
            return new IntervalStats(this);
        }
    }

    public double seconds() {
        return seconds;
    }

    /** Time the connection was busy sending in this interval (tcpi_busy_time's rise). */
    public long busyMicros() {
        return busyMicros;
    }

    /** Busy time limited by the peer's window in this interval (tcpi_rwnd_limited's rise). */
    public long rwndLimitedMicros() {
        return rwndLimitedMicros;
    }

    /** Busy time limited by the send buffer in this interval (tcpi_sndbuf_limited's rise). */
    public long sndbufLimitedMicros() {
        return sndbufLimitedMicros;
    }

    /** Share of the interval the connection was busy sending. */
    public double busyRatio() {
        return seconds <= 0 ? 0 : Math.min(1, busyMicros / (seconds * 1e6));
    }

    /** Share of busy time limited by the peer's advertised receive window. */
    public double rwndLimitedRatio() {
        return busyMicros <= 0 ? 0 : Math.min(1, (double) rwndLimitedMicros / busyMicros);
    }

    /** Share of busy time limited by this socket's send buffer. */
    public double sndbufLimitedRatio() {
        return busyMicros <= 0 ? 0 : Math.min(1, (double) sndbufLimitedMicros / busyMicros);
    }

    /** Retransmitted segments over segments sent. */
    public double retransmitRatio() {
        return segmentsOut <= 0 ? 0 : Math.min(1, (double) retransmittedSegments / segmentsOut);
    }

    public long retransmittedSegments() {
        return retransmittedSegments;
    }

    public long segmentsOut() {
        return segmentsOut;
    }

    public long bytesAcked() {
        return bytesAcked;
    }

    public long bytesReceived() {
        return bytesReceived;
    }

    /** Bytes per second acknowledged by the peer over the interval. */
    public double sendRateBytesPerSecond() {
        return seconds <= 0 ? 0 : bytesAcked / seconds;
    }

    public double receiveRateBytesPerSecond() {
        return seconds <= 0 ? 0 : bytesReceived / seconds;
    }
}
