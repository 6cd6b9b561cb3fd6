package io.tcpsight.internal.model;

import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Everything the connection rules may look at, as plain values: what the kernel says about the
 * socket, what happened in the last interval, the Kafka settings that apply and the kernel.
 * Built from real samples by ConnectionMonitor; built directly in rule tests.
 */
public final class ConnectionFacts {
    private final ConnectionIdentity identity;
    private final boolean established;
    private final long rttMicros;
    private final long sndMssBytes;
    private final Boolean windowScaling;
    private final int rcvWindowScale;
    private final int peerWindowScale;
    private final Long sndWindowBytes;
    private final Long widestSndWindowBytes;
    private final Integer samplesNarrowerThanTheFlow;
    private final Integer receiveBufferBytes;
    private final Integer windowClampBytes;
    private final String congestionControl;
    private final IntervalStats interval;
    private final Long handshakeMillis;
    private final KafkaSettings kafka;
    private final KernelFacts kernel;
    private final PushedClientMetrics pushed;

    private ConnectionFacts(Builder builder) {
        identity = builder.identity;
        established = builder.established;
        rttMicros = builder.rttMicros;
        sndMssBytes = builder.sndMssBytes;
        windowScaling = builder.windowScaling;
        rcvWindowScale = builder.rcvWindowScale;
        peerWindowScale = builder.peerWindowScale;
        sndWindowBytes = builder.sndWindowBytes;
        widestSndWindowBytes = builder.widestSndWindowBytes;
        samplesNarrowerThanTheFlow = builder.samplesNarrowerThanTheFlow;
        receiveBufferBytes = builder.receiveBufferBytes;
        windowClampBytes = builder.windowClampBytes;
        congestionControl = builder.congestionControl;
        interval = builder.interval;
        handshakeMillis = builder.handshakeMillis;
        kafka = builder.kafka;
        kernel = builder.kernel;
        pushed = builder.pushed;
    }

    public static Builder builder(ConnectionIdentity identity) {
        return new Builder(identity);
    }

    public ConnectionIdentity identity() {
        return identity;
    }

    public boolean established() {
        return established;
    }

    /** The path's round-trip time: min_rtt where known, else the smoothed RTT; 0 when not measured. */
    public long rttMicros() {
        return rttMicros;
    }

    /** The segment size this end sends; 0 when not known. */
    public long sndMssBytes() {
        return sndMssBytes;
    }

    /** For messages only: rules compute in microseconds. */
    public double rttMillis() {
        return rttMicros / 1000.0;
    }

    /** Whether window scaling was negotiated. */
    public Optional<Boolean> windowScaling() {
        return Optional.ofNullable(windowScaling);
    }

    public int rcvWindowScale() {
        return rcvWindowScale;
    }

    /**
     * The scale the peer chose for its window at the handshake (tcpi_snd_wscale); empty where not
     * known. It bounds the widest window the peer can ever advertise, 65,535 bytes shifted by it, and
     * the peer's kernel chose it from the largest buffer the socket could reach: its tcp_rmem max
     * (or rmem_max) for an autotuned buffer, the buffer itself where one was set before connecting.
     */
    public OptionalInt peerWindowScale() {
        return peerWindowScale < 0 ? OptionalInt.empty() : OptionalInt.of(peerWindowScale);
    }

    /** The peer's advertised window. */
    public OptionalLong sndWindowBytes() {
        return OptionalValues.orEmpty(sndWindowBytes);
    }

    /**
     * The peer's window at this sample over the widest it advertised in the samples before on this
     * connection: above 1 while its receive buffer is still opening. Empty where either is not known,
     * or nothing wider than 0 was advertised before.
     */
    public OptionalDouble peerWindowGrowth() {
        if (widestSndWindowBytes == null || sndWindowBytes == null || widestSndWindowBytes <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of((double) sndWindowBytes / widestSndWindowBytes);
    }

    /**
     * The widest window the peer has advertised on this connection while tracked, this sample's
     * included: how far its receive buffer has opened, whatever it holds unread now.
     */
    public OptionalLong widestSndWindowBytes() {
        if (widestSndWindowBytes == null) {
            return sndWindowBytes();
        }
        return OptionalLong.of(Math.max(widestSndWindowBytes, sndWindowBytes().orElse(0)));
    }

    /**
     * How many samples in a row, this one included, found the peer's window narrower than what this
     * end moved through it a round trip: a window that closed on unread data since it let the flow
     * through. Empty where the sampler did not count.
     */
    public OptionalInt samplesNarrowerThanTheFlow() {
        return OptionalValues.orEmpty(samplesNarrowerThanTheFlow);
    }

    /** The widest window the peer advertised in the samples before this one, this sample's left out. */
    public OptionalLong widestEarlierSndWindowBytes() {
        return OptionalValues.orEmpty(widestSndWindowBytes);
    }

    /** SO_RCVBUF as the kernel reports it (twice what was asked for). */
    public OptionalInt receiveBufferBytes() {
        return OptionalValues.orEmpty(receiveBufferBytes);
    }

    public OptionalInt windowClampBytes() {
        return OptionalValues.orEmpty(windowClampBytes);
    }

    public Optional<String> congestionControl() {
        return Optional.ofNullable(congestionControl);
    }

    /** Empty on a connection's first sample. */
    public Optional<IntervalStats> interval() {
        return Optional.ofNullable(interval);
    }

    public OptionalLong handshakeMillis() {
        return OptionalValues.orEmpty(handshakeMillis);
    }

    public KafkaSettings kafka() {
        return kafka;
    }

    public KernelFacts kernel() {
        return kernel;
    }

    /**
     * What the client said of itself in a recent telemetry push on this connection (KIP-714):
     * empty where it pushed none lately, and everywhere but at the broker.
     */
    public Optional<PushedClientMetrics> pushed() {
        return Optional.ofNullable(pushed);
    }

    /** Builder; every field but the identity is optional. */
    public static final class Builder {
        private final ConnectionIdentity identity;
        private boolean established = true;
        private long rttMicros;
        private long sndMssBytes;
        private Boolean windowScaling;
        private int rcvWindowScale;
        private int peerWindowScale = -1;
        private Long sndWindowBytes;
        private Long widestSndWindowBytes;
        private Integer samplesNarrowerThanTheFlow;
        private Integer receiveBufferBytes;
        private Integer windowClampBytes;
        private String congestionControl;
        private IntervalStats interval;
        private Long handshakeMillis;
        private KafkaSettings kafka = KafkaSettings.unknown();
        private KernelFacts kernel = KernelFacts.unknown();
        private PushedClientMetrics pushed;

        private Builder(ConnectionIdentity identity) {
            this.identity = identity;
        }

        public Builder established(boolean value) {
            established = value;
            return this;
        }

        /** The path's round-trip time: min_rtt where known, else the smoothed RTT. */
        public Builder rttMicros(long value) {
            rttMicros = value;
            return this;
        }

        public Builder sndMssBytes(long value) {
            sndMssBytes = value;
            return this;
        }

        public Builder windowScaling(boolean value) {
            windowScaling = value;
            return this;
        }

        public Builder rcvWindowScale(int value) {
            rcvWindowScale = value;
            return this;
        }

        /** The peer's window scale (tcpi_snd_wscale), where window scaling was negotiated. */
        public Builder peerWindowScale(int value) {
            peerWindowScale = value;
            return this;
        }

        public Builder sndWindowBytes(long value) {
            sndWindowBytes = value;
            return this;
        }

        /** The widest window the peer advertised on this connection in the samples before this one, while tracked. */
        public Builder widestSndWindowBytes(long value) {
            widestSndWindowBytes = value;
            return this;
        }

        /** How many samples in a row, this one included, found the peer's window narrower than the flow through it. */
        public Builder samplesNarrowerThanTheFlow(int value) {
            samplesNarrowerThanTheFlow = value;
            return this;
        }

        /** SO_RCVBUF as the kernel reports it (twice what was asked for). */
        public Builder receiveBufferBytes(int value) {
            receiveBufferBytes = value;
            return this;
        }

        public Builder windowClampBytes(int value) {
            windowClampBytes = value;
            return this;
        }

        public Builder congestionControl(String value) {
            congestionControl = value;
            return this;
        }

        public Builder interval(IntervalStats value) {
            interval = value;
            return this;
        }

        public Builder handshakeMillis(OptionalLong value) {
            handshakeMillis = OptionalValues.orNull(value);
            return this;
        }

        public Builder handshakeMillis(long value) {
            handshakeMillis = value;
            return this;
        }

        public Builder kafka(KafkaSettings value) {
            kafka = value;
            return this;
        }

        public Builder kernel(KernelFacts value) {
            kernel = value;
            return this;
        }

        /** A push the client made on this connection lately; null for none. */
        public Builder pushed(PushedClientMetrics value) {
            pushed = value;
            return this;
        }

        public ConnectionFacts build() {
            return new ConnectionFacts(this);
        }
    }
}
