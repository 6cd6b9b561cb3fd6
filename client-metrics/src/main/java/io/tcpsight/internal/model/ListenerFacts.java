package io.tcpsight.internal.model;

import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A listening socket, or the namespace's listeners together, and how much the counters rose
 * recently (the agent uses the last 5 minutes, so a short connect storm stays visible): the
 * listener's own drops where the kernel counts them per socket, and the namespace's counters,
 * which every listener of the namespace shares. A rise is empty when not known (first sample,
 * or /proc/net/netstat unreadable). Facts whose identity names no listener are the namespace's:
 * what its counters say when no listener can be told as the one that overflowed.
 */
public final class ListenerFacts {
    private final ConnectionIdentity identity;
    private final long acceptQueueLength;
    private final long effectiveBacklog;
    private final Integer configuredBacklog;
    private final Long somaxconn;
    private final Long listenOverflows;
    private final Long listenDrops;
    private final Long syncookiesSent;
    private final Long hostTimestamps;
    private final boolean countsOwnDrops;
    private final Long ownDrops;

    private ListenerFacts(Builder builder) {
        identity = builder.identity;
        acceptQueueLength = builder.acceptQueueLength;
        effectiveBacklog = builder.effectiveBacklog;
        configuredBacklog = builder.configuredBacklog;
        somaxconn = builder.somaxconn;
        listenOverflows = builder.listenOverflows;
        listenDrops = builder.listenDrops;
        syncookiesSent = builder.syncookiesSent;
        hostTimestamps = builder.hostTimestamps;
        countsOwnDrops = builder.countsOwnDrops;
        ownDrops = builder.ownDrops;
    }

    /** The listener and its accept queue as the kernel reports it now. */
    public static Builder builder(ConnectionIdentity identity, long acceptQueueLength, long effectiveBacklog) {
        return new Builder(identity, acceptQueueLength, effectiveBacklog);
    }

    public ConnectionIdentity identity() {
        return identity;
    }

    public long acceptQueueLength() {
        return acceptQueueLength;
    }

    /** The backlog the kernel applies: the smaller of the configured one and somaxconn. */
    public long effectiveBacklog() {
        return effectiveBacklog;
    }

    /** socket.listen.backlog.size where it can be told apart from somaxconn. */
    public OptionalInt configuredBacklog() {
        return OptionalValues.orEmpty(configuredBacklog);
    }

    public OptionalLong somaxconn() {
        return OptionalValues.orEmpty(somaxconn);
    }

    public OptionalLong listenOverflows() {
        return OptionalValues.orEmpty(listenOverflows);
    }

    public OptionalLong listenDrops() {
        return OptionalValues.orEmpty(listenDrops);
    }

    public OptionalLong syncookiesSent() {
        return OptionalValues.orEmpty(syncookiesSent);
    }

    /** Whether these facts are one listener's; otherwise they are the namespace's. */
    public boolean isOneListener() {
        return identity.listener().isPresent();
    }

    /**
     * Whether the kernel counts this listener's own drops (SO_MEMINFO): then its overflow is
     * judged by them alone, and the namespace's counters are context.
     */
    public boolean countsOwnDrops() {
        return countsOwnDrops;
    }

    /** The rise of this listener's own drops over the window; empty when not counted or not known yet. */
    public OptionalLong ownDrops() {
        return OptionalValues.orEmpty(ownDrops);
    }

    /** net.ipv4.tcp_timestamps of the broker's host. */
    public OptionalLong hostTimestamps() {
        return OptionalValues.orEmpty(hostTimestamps);
    }

    /** Builder; every fact after the queue is optional. */
    public static final class Builder {
        private final ConnectionIdentity identity;
        private final long acceptQueueLength;
        private final long effectiveBacklog;
        private Integer configuredBacklog;
        private Long somaxconn;
        private Long listenOverflows;
        private Long listenDrops;
        private Long syncookiesSent;
        private Long hostTimestamps;
        private boolean countsOwnDrops;
        private Long ownDrops;

        private Builder(ConnectionIdentity identity, long acceptQueueLength, long effectiveBacklog) {
            this.identity = identity;
            this.acceptQueueLength = acceptQueueLength;
            this.effectiveBacklog = effectiveBacklog;
        }

        public Builder configuredBacklog(Integer value) {
            configuredBacklog = value;
            return this;
        }

        public Builder somaxconn(Long value) {
            somaxconn = value;
            return this;
        }

        /** Rises of the namespace's counters over the window; null where not known. */
        public Builder rises(Long overflows, Long drops, Long syncookies) {
            listenOverflows = overflows;
            listenDrops = drops;
            syncookiesSent = syncookies;
            return this;
        }

        /**
         * The kernel counts this listener's own drops; their rise over the window, null until two
         * readings exist.
         */
        public Builder ownDrops(Long rise) {
            countsOwnDrops = true;
            ownDrops = rise;
            return this;
        }

        public Builder hostTimestamps(Long value) {
            hostTimestamps = value;
            return this;
        }

        public ListenerFacts build() {
            return new ListenerFacts(this);
        }
    }
}
