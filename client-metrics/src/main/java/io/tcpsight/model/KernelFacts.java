package io.tcpsight.model;


/** The kernel facts rules use; null when not known. */
public final class KernelFacts {
    private final KernelVersion version;
    private final Long tcpRmemMax;
    private final Long tcpWmemMax;
    private final Long timestamps;
    private final Long windowScaling;

    public KernelFacts(KernelVersion version, Long tcpRmemMax, Long tcpWmemMax, Long timestamps) {
        this(version, tcpRmemMax, tcpWmemMax, timestamps, null);
    }

    public KernelFacts(KernelVersion version, Long tcpRmemMax, Long tcpWmemMax, Long timestamps, Long windowScaling) {
        this.version = version;
        this.tcpRmemMax = tcpRmemMax;
        this.tcpWmemMax = tcpWmemMax;
        this.timestamps = timestamps;
        this.windowScaling = windowScaling;
    }

    public static KernelFacts unknown() {
        return new KernelFacts(null, null, null, null, null);
    }

    public KernelVersion version() {
        return version;
    }

    public Long tcpRmemMax() {
        return tcpRmemMax;
    }

    public Long tcpWmemMax() {
        return tcpWmemMax;
    }

    /** net.ipv4.tcp_timestamps of this host. */
    public Long timestamps() {
        return timestamps;
    }

    /** net.ipv4.tcp_window_scaling of this host. */
    public Long windowScaling() {
        return windowScaling;
    }
}
