package io.tcpsight.agent.internal.naming;

import io.tcpsight.internal.model.ProduceTraffic;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A broker-side Kafka connection as the request hook knows it: the tracked socket, and the
 * principal and client information its identity was last read from, so that a request that
 * changes nothing costs two equals calls, not an update.
 */
final class BrokerConnection {
    final TrackedConnection tracked;
    /** Kafka's id of the connection. */
    final String connectionId;

    private volatile Object lastPrincipal;
    /** Null until a request was read; {@link #NOT_READABLE} when its Kafka has none to read. */
    private volatile Object lastClientInformation;

    private static final Object NOT_READABLE = new Object();
    /**
     * What the client's first Fetch on this connection asked for: null until the first request body on a
     * connection whose bulk flow goes to the client was read, {@link FetchRequestSizes#NONE_TOLD} where
     * that body told no sizes (not a Fetch, or a Fetch that named no partition). Only the first is read.
     */
    volatile FetchRequestSizes.Sizes fetchSizes;

    /**
     * What the connection's client.id and its Fetch say of it as a follower's fetcher: null until either
     * spoke or the connection went away. Its own object, made only for a replica fetcher's connection (or
     * a client that named itself like one), so that a big broker's other connections carry one reference
     * for it, not five fields. Written under this connection's lock.
     */
    volatile FetcherClaim fetcher;

    /**
     * What a client.id says a connection is ({@code broker-N-fetcher-K}: follower N, fetcher K; -1 for
     * any other client) and the replica id its Fetch carried (a consumer's is -1; {@link
     * Integer#MIN_VALUE} until a Fetch was read). It counts in its follower's fetchers
     * (BrokerConnectionIds) only when both agree: a client.id alone is anyone's to choose.
     */
    static final class FetcherClaim {
        /** A connection that went away before either spoke: it is never counted. Never written. */
        static final FetcherClaim RELEASED = new FetcherClaim(true);

        volatile int follower = -1;
        volatile int number = -1;
        volatile int fetchedAsReplica = Integer.MIN_VALUE;
        /** Counted now in its follower's fetchers. */
        volatile boolean counted;
        /** The connection went away (closed, or released by the registry): it is never counted again. */
        volatile boolean released;

        FetcherClaim() {}

        private FetcherClaim(boolean released) {
            this.released = released;
        }
    }

    /** The first Fetch body was read (whatever it told): no more are. */
    boolean fetchBodyRead() {
        return fetchSizes != null;
    }

    /** The sizes the first full Fetch asked for; null where none was read or it told none. */
    FetchRequestSizes.Sizes knownFetchSizes() {
        FetchRequestSizes.Sizes sizes = fetchSizes;
        return sizes == FetchRequestSizes.NONE_TOLD ? null : sizes;
    }

    /** Whether a client.id claimed this connection for a follower's fetcher (it stays so once gone). */
    boolean claimsFetcher() {
        FetcherClaim claim = fetcher;
        return claim != null && claim.follower >= 0;
    }

    /** Read the partitions of every this-many Produce requests: a walk of the request's topics each time. */
    private static final int PARTITIONS_READ_EVERY = 64;

    /*
     * Produce requests: counted by the connection's network thread (its one writer), read by the
     * sampling thread once a round. Null until the first: most of a big broker's connections never
     * produce, and the counts would cost each of them 40 bytes.
     */
    private volatile ProduceCounts produce;

    BrokerConnection(String connectionId, TrackedConnection tracked) {
        this.connectionId = connectionId;
        this.tracked = tracked;
    }

    /** Whether this Produce request's partitions should be read (the first, then every 64th). */
    boolean readsPartitionsOfNextProduce() {
        ProduceCounts counts = produce;
        return counts == null || counts.requests % PARTITIONS_READ_EVERY == 0;
    }

    /** One Produce request of {@code bytes}; {@code partitions} below 0 when they were not read. */
    void produced(int bytes, int partitions) {
        ProduceCounts counts = produce;
        if (counts == null) {
            // its interval begins where the connection's last sample was taken: the round that last judged it,
            // or read it before rounds that carried it
            counts = new ProduceCounts(tracked.latestSampleNanos().orElse(0));
            produce = counts; // one writer: the connection's network thread; published here to the sampling thread
        }
        if (partitions >= 0) {
            counts.partitionsPerProduce = partitions;
        }
        if (partitions > 0) {
            counts.readPartitions += partitions;
            counts.readBytes += bytes;
        }
        counts.bytes += bytes;
        counts.requests++;
    }

    /**
     * What Produce requests carried since the previous call (the previous round), or null: before
     * the first interval, or when none came in it. Counted from where the socket's latest interval began
     * where that is later: after rounds that carried it unread (no request came in them). A count begun
     * after this round read the socket (its first interval starts at the socket's latest sample) has no
     * interval in this round: it is the next round's, as the bytes its requests moved are, never a rate over
     * the moments between the read and this call. Later intervals run from one call to the next. The socket's
     * sample is looked at only for a connection that produced.
     */
    ProduceTraffic produceTrafficSince(long nowNanos) {
        ProduceCounts counts = produce;
        if (counts == null) {
            return null;
        }
        long start = counts.intervalStartNanos;
        OptionalLong sampledAt = tracked.latestSampleNanos();
        if (start != 0 && sampledAt.isPresent() && start == sampledAt.getAsLong()) {
            return null; // begun after this round's read of the socket: its first interval ends in the next round
        }
        counts.intervalStartNanos = nowNanos;
        OptionalLong sampledFrom = tracked.latestIntervalStartNanos();
        if (start != 0 && sampledFrom.isPresent() && sampledFrom.getAsLong() - start > 0) {
            start = sampledFrom.getAsLong();
        }
        long requests = counts.requests;
        long bytes = counts.bytes;
        long previousRequests = counts.intervalRequests;
        long previousBytes = counts.intervalBytes;
        counts.intervalRequests = requests;
        counts.intervalBytes = bytes;
        if (start == 0 || requests == previousRequests || nowNanos <= start) {
            return null;
        }
        int partitions = counts.partitionsPerProduce;
        // the read requests of this interval, or the last interval that had one: the fill as it is now, never the
        // flow's history (a producer backlogged at first and paced by its application since reads as paced)
        long readBytes = counts.readBytes;
        long readPartitions = counts.readPartitions;
        long newPartitions = readPartitions - counts.intervalReadPartitions;
        if (newPartitions > 0) {
            counts.meanBatchBytes = (double) (readBytes - counts.intervalReadBytes) / newPartitions;
        }
        counts.intervalReadBytes = readBytes;
        counts.intervalReadPartitions = readPartitions;
        return new ProduceTraffic(
                requests - previousRequests,
                bytes - previousBytes,
                (nowNanos - start) / 1e9,
                partitions < 0 ? null : partitions,
                (start - counts.firstNanos) / 1e9,
                counts.meanBatchBytes);
    }

    /** A producing connection's counts. */
    private static final class ProduceCounts {
        /* when the connection's first Produce request came: its flow's start */
        final long firstNanos = System.nanoTime();
        /* written by the network thread */
        volatile long requests;
        volatile long bytes;
        volatile int partitionsPerProduce = -1;
        /*
         * the requests whose partitions were read: their bytes and partitions summed (the partitions written first,
         * the bytes read first, so a reading never holds a request's bytes without its partitions)
         */
        volatile long readPartitions;
        volatile long readBytes;
        /*
         * the sampling thread's own: when the interval began (0 before the first), and the counts at the end of the
         * previous interval
         */
        long intervalStartNanos;

        long intervalRequests;
        long intervalBytes;
        long intervalReadBytes;
        long intervalReadPartitions;
        double meanBatchBytes = Double.NaN;

        ProduceCounts(long intervalStartNanos) {
            this.intervalStartNanos = intervalStartNanos;
        }
    }

    /**
     * Whether the identity was read from an equal principal and client information (their own
     * equals: a SASL channel builds a new KafkaPrincipal for every request, equal to the last until
     * the connection authenticates again). Kafka handles one request of a connection at a time, so
     * the two are written together; two fields, not a pair object, for each of 100,000 connections.
     */
    boolean readFrom(Object principal, Object clientInformation) {
        Object lastClient = lastClientInformation;
        return lastClient != null
                && Objects.equals(lastPrincipal, principal)
                && Objects.equals(lastClient, clientInformation == null ? NOT_READABLE : clientInformation);
    }

    void read(Object principal, Object clientInformation) {
        lastPrincipal = principal;
        lastClientInformation = clientInformation == null ? NOT_READABLE : clientInformation;
    }
}
