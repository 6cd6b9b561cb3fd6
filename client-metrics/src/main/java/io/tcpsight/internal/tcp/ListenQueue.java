package io.tcpsight.internal.tcp;

/**
 * A listening socket's accept queue: what {@code ss -lt} shows as Recv-Q and Send-Q. The SYN
 * queue is not exposed by the kernel.
 */
public final class ListenQueue {
    private final long acceptQueueLength;
    private final long effectiveBacklog;

    public ListenQueue(long acceptQueueLength, long effectiveBacklog) {
        this.acceptQueueLength = acceptQueueLength;
        this.effectiveBacklog = effectiveBacklog;
    }

    /** Connections completed by the kernel and not yet accepted by the application. */
    public long acceptQueueLength() {
        return acceptQueueLength;
    }

    /** min(listen() backlog, net.core.somaxconn). */
    public long effectiveBacklog() {
        return effectiveBacklog;
    }

    /** Accept-queue length over the effective backlog; 0 when the backlog is 0. */
    public double fillRatio() {
        return effectiveBacklog == 0 ? 0 : (double) acceptQueueLength / effectiveBacklog;
    }

    @Override
    public String toString() {
        return acceptQueueLength + "/" + effectiveBacklog;
    }
}
