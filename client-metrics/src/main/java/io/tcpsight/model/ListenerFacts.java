package io.tcpsight.diagnose;

import io.tcpsight.connection.ConnectionIdentity;

/**
 * A listening socket and how much its namespace's counters rose recently (the agent uses the
 * last 5 minutes, so a short connect storm stays visible). Rises are null when not known
 * (first sample, or /proc/net/netstat unreadable).
 */
public final class ListenerFacts {
    final ConnectionIdentity identity;
    final long acceptQueueLength;
    final long effectiveBacklog;
    final Integer configuredBacklog;
    final Long somaxconn;
    final Long listenOverflows;
    final Long listenDrops;
    final Long syncookiesSent;
    final Long hostTimestamps;

    public ListenerFacts(ConnectionIdentity identity, long acceptQueueLength, long effectiveBacklog, Integer configuredBacklog, Long somaxconn,
            Long listenOverflows, Long listenDrops, Long syncookiesSent, Long hostTimestamps) {
        this.identity = identity;
        this.acceptQueueLength = acceptQueueLength;
        this.effectiveBacklog = effectiveBacklog;
        this.configuredBacklog = configuredBacklog;
        this.somaxconn = somaxconn;
        this.listenOverflows = listenOverflows;
        this.listenDrops = listenDrops;
        this.syncookiesSent = syncookiesSent;
        this.hostTimestamps = hostTimestamps;
    }

    public ConnectionIdentity identity() {
        return identity;
    }
}
