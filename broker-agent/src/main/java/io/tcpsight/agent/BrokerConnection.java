package io.tcpsight.agent;

import io.tcpsight.model.ProduceTraffic;
import io.tcpsight.sampling.TrackedConnection;
import java.util.Objects;

/**
 * A broker-side Kafka connection as the request hook knows it: the tracked socket, and the
 * principal and client information its identity was last read from, so that a request that
 * changes nothing costs two equals calls, not an update.
 */
final class BrokerConnection {
    final TrackedConnection tracked;
    private volatile Source lastSource;
    /** What the client's first full Fetch on this connection asked for; null until one came. */
    volatile FetchRequestSizes.Sizes fetchSizes;
    /** Its first Fetch (or ShareFetch) body was read: no more are. */
    volatile boolean bodiesRead;

    /** Read the partitions of every this-many Produce requests: a walk of the request's topics each time. */
    private static final int PARTITIONS_READ_EVERY = 64;

    /*
     * Produce requests: counted by the connection's network thread (its one writer), read by the
     * sampling thread once a round.
     */
    private volatile long produceRequests;
    private volatile long produceBytes;
    private volatile int partitionsPerProduce = -1;
    /* The sampling thread's own: the counts at the end of the previous interval. */
    private long intervalRequests;
    private long intervalBytes;
    private long intervalStartNanos;

    BrokerConnection(TrackedConnection tracked) {
        this.tracked = tracked;
    }

    /** Whether this Produce request's partitions should be read (the first, then every 64th). */
    boolean readsPartitionsOfNextProduce() {
        return produceRequests % PARTITIONS_READ_EVERY == 0;
    }

    /** One Produce request of {@code bytes}; {@code partitions} below 0 when they were not read. */
    void produced(int bytes, int partitions) {
        if (partitions >= 0) {
            partitionsPerProduce = partitions;
        }
        produceBytes += bytes;
        produceRequests++; // one writer: the connection's network thread
    }

    /**
     * What Produce requests carried since the previous call (the previous round), or null: before
     * the first interval, or when none came in it.
     */
    ProduceTraffic produceTrafficSince(long nowNanos) {
        long requests = produceRequests;
        long bytes = produceBytes;
        long start = intervalStartNanos;
        long previousRequests = intervalRequests;
        long previousBytes = intervalBytes;
        intervalRequests = requests;
        intervalBytes = bytes;
        intervalStartNanos = nowNanos;
        if (start == 0 || requests == previousRequests || nowNanos <= start) {
            return null;
        }
        int partitions = partitionsPerProduce;
        return new ProduceTraffic(
                requests - previousRequests,
                bytes - previousBytes,
                (nowNanos - start) / 1e9,
                partitions < 0 ? null : partitions);
    }

    /**
     * Whether the identity was read from an equal principal and client information (their own
     * equals: a SASL channel builds a new KafkaPrincipal for every request, equal to the last until
     * the connection authenticates again).
     */
    boolean readFrom(Object principal, Object clientInformation) {
        Source source = lastSource;
        return source != null
                && Objects.equals(source.principal, principal)
                && Objects.equals(source.clientInformation, clientInformation);
    }

    void read(Object principal, Object clientInformation) {
        lastSource = new Source(principal, clientInformation);
    }

    /** One immutable pair, so that a reader never sees one request's principal with another's client. */
    private static final class Source {
        final Object principal;
        final Object clientInformation;

        Source(Object principal, Object clientInformation) {
            this.principal = principal;
            this.clientInformation = clientInformation;
        }
    }
}
