package io.tcpsight.internal.model;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/** The kernel facts rules use. The constructors take null for a fact not known; the getters return it as empty. */
public final class KernelFacts {
    private final KernelVersion version;
    private final Long tcpRmemMax;
    private final Long tcpWmemMax;
    private final Long timestamps;
    private final Long windowScaling;
    private final HostSignals hostSignals;

    public KernelFacts(KernelVersion version, Long tcpRmemMax, Long tcpWmemMax, Long timestamps) {
        this(version, tcpRmemMax, tcpWmemMax, timestamps, null);
    }

    public KernelFacts(KernelVersion version, Long tcpRmemMax, Long tcpWmemMax, Long timestamps, Long windowScaling) {
        this(version, tcpRmemMax, tcpWmemMax, timestamps, windowScaling, null);
    }

    private KernelFacts(
            KernelVersion version,
            Long tcpRmemMax,
            Long tcpWmemMax,
            Long timestamps,
            Long windowScaling,
            HostSignals hostSignals) {
        this.hostSignals = hostSignals;
        this.version = version;
        this.tcpRmemMax = tcpRmemMax;
        this.tcpWmemMax = tcpWmemMax;
        this.timestamps = timestamps;
        this.windowScaling = windowScaling;
    }

    public static KernelFacts unknown() {
        return new KernelFacts(null, null, null, null, null);
    }

    public Optional<KernelVersion> version() {
        return Optional.ofNullable(version);
    }

    public OptionalLong tcpRmemMax() {
        return OptionalValues.orEmpty(tcpRmemMax);
    }

    public OptionalLong tcpWmemMax() {
        return OptionalValues.orEmpty(tcpWmemMax);
    }

    /** net.ipv4.tcp_timestamps of this host. */
    public OptionalLong timestamps() {
        return OptionalValues.orEmpty(timestamps);
    }

    /** The same facts with what this host did to packets in the round's interval. */
    public KernelFacts withHostSignals(HostSignals value) {
        return new KernelFacts(version, tcpRmemMax, tcpWmemMax, timestamps, windowScaling, value);
    }

    /**
     * Whether the host's TCP settings are those of {@code other}: the kernel and the sysctls, not what the
     * host did to packets in an interval (a connection that moved nothing met none of it).
     */
    public boolean sameSettingsAs(KernelFacts other) {
        return Objects.equals(version, other.version)
                && Objects.equals(tcpRmemMax, other.tcpRmemMax)
                && Objects.equals(tcpWmemMax, other.tcpWmemMax)
                && Objects.equals(timestamps, other.timestamps)
                && Objects.equals(windowScaling, other.windowScaling);
    }

    /** What this host dropped, queued and throttled in the last interval; empty when not read. */
    public Optional<HostSignals> hostSignals() {
        return Optional.ofNullable(hostSignals);
    }

    /** net.ipv4.tcp_window_scaling of this host. */
    public OptionalLong windowScaling() {
        return OptionalValues.orEmpty(windowScaling);
    }
}
