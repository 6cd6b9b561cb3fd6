package io.tcpsight.internal.diagnose.finding;

/** The stable rule ids: a contract shared by the agent, the Connect plugin, the doctor and the logs. */
public enum RuleId {
    SMALL_RECEIVE_BUFFER("small-receive-buffer"),
    KERNEL_WINDOW_CLAMP_REGRESSION("kernel-window-clamp-regression"),
    NO_WINDOW_SCALING("no-window-scaling"),
    RECEIVE_WINDOW_LIMITED("receive-window-limited"),
    SEND_BUFFER_LIMITED("send-buffer-limited"),
    SMALL_SEND_BUFFER("small-send-buffer"),
    RETRANSMISSIONS("retransmissions"),
    SLOW_HANDSHAKE("slow-handshake"),
    LISTEN_BACKLOG_OVERFLOW("listen-backlog-overflow"),
    SYN_COOKIES("syn-cookies"),
    FETCH_SIZE_BELOW_BDP("fetch-size-below-bdp"),
    /** A producer's full batches carry far less per round trip than the path's bandwidth-delay product. */
    PRODUCE_PIPELINE_BELOW_BDP("produce-pipeline-below-bdp"),
    WINDOW_SCALING_DISABLED("window-scaling-disabled"),
    TIMESTAMPS_DISABLED("timestamps-disabled"),
    BROKER_UNREACHABLE("broker-unreachable"),
    /** This host dropped packets on their way out (a qdisc, the driver, a cloud allowance). */
    HOST_EGRESS_DROPS("host-egress-drops"),
    /** This process's cgroup used its CPU quota and the kernel stopped it. */
    CPU_THROTTLED("cpu-throttled"),
    /** Info only: the host's CPUs had no idle time while this process's flows ran below the target. */
    HOST_CPU_BUSY("host-cpu-busy"),
    /** One transmit queue of a multi-queue device carries nearly everything. */
    TX_QUEUE_SKEW("tx-queue-skew"),
    /** Connections not watched because tcpsight.max.tracked.connections was reached. */
    UNTRACKED_CONNECTIONS("untracked-connections"),
    /** Info only: sockets whose owner is not known, summed per broker path, with what their own findings would be. */
    UNPLACED_SOCKETS("unplaced-sockets"),
    /** Info only: a producer's own request latency (KIP-714) far beyond the path's: the broker's time. */
    REQUEST_LATENCY_BEYOND_PATH("request-latency-beyond-path");

    private final String id;

    RuleId(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    @Override
    public String toString() {
        return id;
    }
}
