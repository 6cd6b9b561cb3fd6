package io.tcpsight.model;


/**
 * A listening socket and how much its namespace's counters rose recently (the agent uses the
 * last 5 minutes, so a short connect storm stays visible). Rises are null when not known
 * (first sample, or /proc/net/netstat unreadable).
 */
public final class ListenerFacts {
    public final ConnectionIdentity identity;
    public final long acceptQueueLength;
    public final long effectiveBacklog;
    public final Integer configuredBacklog;
    public final Long somaxconn;
    public final Long listenOverflows;
    public final Long listenDrops;
    public final Long syncookiesSent;
    public final Long hostTimestamps;

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
