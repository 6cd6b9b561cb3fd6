package io.tcpsight.agent.internal.naming;

import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.ProduceTraffic;
import io.tcpsight.internal.model.PushedClientMetrics.Figure;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kafka's broker-side connection ids and the tracked connections they name, so that a request
 * (which carries only the id) reaches its connection. Ids are "local:port-remote:port-index" in
 * Kafka 3.x and "local:port-remote:port-processor-index" in 4.x.
 */
public final class BrokerConnectionIds {
    private final BrokerSocketSettings brokerSockets;

    private final ConnectionIdTable byConnectionId = new ConnectionIdTable();
    /**
     * Connections adopted from the census (open before the hooks), by the addresses part of the id,
     * until a request tells their full id.
     */
    private final Map<String, TrackedConnection> adoptedByAddresses = new ConcurrentHashMap<>();

    /**
     * The replica fetcher connections open to this broker, by follower (its broker id) and fetcher
     * number: what tells the fetch rule that a second fetcher is in effect. A connection counts while
     * it is open, so a follower restarted with fewer fetchers stops counting as running more. Bounded
     * by {@link #MOST_FOLLOWERS}: a cluster's brokers, not its clients.
     */
    private final Map<Integer, FetcherCounts> fetchersByFollower = new ConcurrentHashMap<>();

    static final int MOST_FOLLOWERS = 4096;

    /** @param brokerSockets the broker's own socket settings, from its config; unknown outside a broker */
    public BrokerConnectionIds(BrokerSocketSettings brokerSockets) {
        this.brokerSockets = brokerSockets;
    }

    void registered(String connectionId, TrackedConnection connection) {
        BrokerConnection broker = new BrokerConnection(connectionId, connection);
        connection.owner(broker);
        connection.requestsTold(); // the request hook tells each: an idle one may go unread between them
        byConnectionId.put(broker);
        if (!connection.isTracked()) {
            // let go while it was being registered (an adopted one, claimed by a request after the sampler released
            // it): the registry told its release before this put
            byConnectionId.remove(broker);
        }
    }

    /**
     * Keeps the tables in step with {@code registry}: a connection it lets go (closed as Kafka closes it, released by
     * the sampler when its descriptor went away unseen, replaced on a reused descriptor, or forgotten) leaves them on
     * the thread that let it go, so no round walks them.
     */
    public void follow(ConnectionRegistry registry) {
        registry.onClose(this::closed);
        registry.onForget(this::closed);
    }

    /**
     * A request on this connection named its client {@code clientId}: a follower's replica fetcher
     * counts, while its connection is open, as one of the fetcher threads its follower runs.
     */
    void clientIdSeen(BrokerConnection connection, String clientId) {
        if (clientId == null || !clientId.startsWith(FETCHER_PREFIX) || connection.claimsFetcher()) {
            return;
        }
        OptionalInt follower = ClientKind.followerBrokerId(clientId);
        OptionalInt number = ClientKind.replicaFetcherIndex(clientId);
        if (follower.isEmpty() || number.isEmpty() || number.getAsInt() == Integer.MAX_VALUE) {
            return;
        }
        synchronized (connection) {
            BrokerConnection.FetcherClaim claim = claimOf(connection);
            if (claim == null) {
                return; // gone before it was claimed
            }
            claim.number = number.getAsInt();
            claim.follower = follower.getAsInt();
            countIfFollowersFetcher(claim);
        }
    }

    /**
     * A Fetch on this connection carried {@code replicaId}: a follower's own fetches carry its broker id,
     * where a consumer's carries -1, whatever client.id it chose.
     */
    void fetchedAsReplica(BrokerConnection connection, int replicaId) {
        synchronized (connection) {
            BrokerConnection.FetcherClaim claim = claimOf(connection);
            if (claim == null) {
                return;
            }
            claim.fetchedAsReplica = replicaId;
            countIfFollowersFetcher(claim);
        }
    }

    /** The connection's claim, made on its first word; null where the connection went away first. Under its lock. */
    private static BrokerConnection.FetcherClaim claimOf(BrokerConnection connection) {
        BrokerConnection.FetcherClaim claim = connection.fetcher;
        if (claim == BrokerConnection.FetcherClaim.RELEASED) {
            return null;
        }
        if (claim == null) {
            claim = new BrokerConnection.FetcherClaim();
            connection.fetcher = claim;
        }
        return claim;
    }

    /** Counts the connection in its follower's fetchers when its client.id and its Fetch name the same follower. */
    private void countIfFollowersFetcher(BrokerConnection.FetcherClaim claim) {
        int follower = claim.follower;
        if (follower < 0 || claim.fetchedAsReplica != follower || claim.counted || claim.released) {
            return;
        }
        FetcherCounts counts = fetchersByFollower.get(follower);
        if (counts == null) {
            if (fetchersByFollower.size() >= MOST_FOLLOWERS) {
                return;
            }
            counts = fetchersByFollower.computeIfAbsent(follower, id -> new FetcherCounts());
        }
        counts.opened(claim.number);
        claim.counted = true;
    }

    /**
     * A fetcher's connection went away: its follower's count of it drops, and the connection is never
     * counted again, whatever a request still being read on another thread says of it.
     */
    private void fetcherGone(BrokerConnection connection) {
        synchronized (connection) {
            BrokerConnection.FetcherClaim claim = connection.fetcher;
            if (claim == null) {
                connection.fetcher = BrokerConnection.FetcherClaim.RELEASED;
                return;
            }
            if (claim == BrokerConnection.FetcherClaim.RELEASED) {
                return;
            }
            claim.released = true;
            if (!claim.counted) {
                return;
            }
            FetcherCounts counts = fetchersByFollower.get(claim.follower);
            if (counts != null) {
                counts.closed(claim.number);
            }
            claim.counted = false;
        }
    }

    /** How many adopted connections wait for a request to tell their id (a test's view). */
    int adoptedKept() {
        return adoptedByAddresses.size();
    }

    /** How many followers the table holds (a test's view of its bound). */
    int followersKept() {
        return fetchersByFollower.size();
    }

    /** One follower's open fetcher connections to this broker, by fetcher number. */
    private static final class FetcherCounts {
        private final TreeMap<Integer, Integer> open = new TreeMap<>();

        synchronized void opened(int number) {
            open.merge(number, 1, Integer::sum);
        }

        synchronized void closed(int number) {
            open.computeIfPresent(number, (n, count) -> count > 1 ? count - 1 : null);
        }

        /** The highest fetcher number open, plus one: the fetcher threads the follower runs at least; 0 for none. */
        synchronized int atLeast() {
            return open.isEmpty() ? 0 : open.lastKey() + 1;
        }
    }

    /** What every replica fetcher's client.id starts with: a cheap test before the pattern. */
    private static final String FETCHER_PREFIX = "broker-";

    void adopted(InetSocketAddress local, InetSocketAddress remote, TrackedConnection connection) {
        String key = addressKey(local, remote);
        adoptedByAddresses.put(key, connection);
        if (!connection.isTracked()) {
            adoptedByAddresses.remove(key, connection); // let go since the census: its release came before this put
        }
    }

    /**
     * What this agent keeps for a connection Kafka registered (only {@link #registered} sets it, with that
     * connection), or null for one it did not (a client-side one).
     */
    private static BrokerConnection brokerOf(TrackedConnection connection) {
        Object owner = connection.owner().orElse(null);
        return owner instanceof BrokerConnection ? (BrokerConnection) owner : null;
    }

    /**
     * The tracked connection a request came on, by the connection id its context carries (a client
     * telemetry push is joined to it); empty for a connection not tracked, or a context without one.
     */
    public Optional<TrackedConnection> trackedFor(Object requestContext) {
        if (requestContext == null) {
            return Optional.empty();
        }
        String connectionId = RequestFields.of(requestContext).connectionId(requestContext);
        BrokerConnection connection = connectionId == null ? null : find(connectionId);
        return connection == null ? Optional.empty() : Optional.of(connection.tracked);
    }

    /** The connection a request's id names; an adopted one learns its full id here. Null when not ours. */
    BrokerConnection find(String connectionId) {
        BrokerConnection connection = byConnectionId.get(connectionId);
        return connection != null || adoptedByAddresses.isEmpty() ? connection : claimAdopted(connectionId);
    }

    /** A connection its registry let go leaves the tables, whether Kafka had told its id or it was still adopted. */
    void closed(TrackedConnection connection) {
        BrokerConnection broker = brokerOf(connection);
        if (broker != null) {
            byConnectionId.remove(broker);
            fetcherGone(broker);
            return;
        }
        ConnectionIdentity identity = connection.identity();
        if (!adoptedByAddresses.isEmpty()
                && identity.local().isPresent()
                && identity.remote().isPresent()) {
            adoptedByAddresses.remove(
                    addressKey(identity.local().get(), identity.remote().get()), connection);
        }
    }

    /**
     * The Kafka settings the rules judge a broker-side connection by: the broker's own socket
     * buffers (its config), the sizes its Fetch asked for, and what its Produce requests carried
     * since the previous round. Called once a round per connection, by the monitor.
     */
    public KafkaSettings requestedSettings(TrackedConnection connection) {
        KafkaSettings requested = requestedByClient(connection);
        if (connection.identity().role() != Role.BROKER) {
            return requested; // this broker's own replica fetchers: the leader's agent reads what they ask for
        }
        // what this broker set on every accepted socket, certain from its config: the next limit is named with the
        // first
        OptionalInt send = brokerSockets.get(BrokerSocketSettings.SEND_BUFFER);
        OptionalInt receive = brokerSockets.get(BrokerSocketSettings.RECEIVE_BUFFER);
        if (send.isPresent()) {
            requested = requested.withSendBufferBytes(send.getAsInt());
        }
        return receive.isPresent() ? requested.withReceiveBufferBytes(receive.getAsInt()) : requested;
    }

    private KafkaSettings requestedByClient(TrackedConnection connection) {
        // reached from the connection, not looked up by its id: the lookup was a fifth of a big broker's round (JFR)
        BrokerConnection broker = brokerOf(connection);
        FetchRequestSizes.Sizes sizes = broker == null ? null : broker.knownFetchSizes();
        KafkaSettings settings = sizes == null
                ? KafkaSettings.unknown()
                : KafkaSettings.unknown()
                        .withFetchMaxBytes(sizes.maxBytes)
                        .withMaxPartitionFetchBytes(sizes.partitionMaxBytes)
                        .withPartitionsPerBroker(sizes.partitions);
        settings = withFollowerFetchers(settings, broker);
        long now = System.nanoTime();
        ProduceTraffic traffic = broker == null ? null : broker.produceTrafficSince(now);
        return traffic == null ? settings : settings.withProduceTraffic(withPushedBuffer(traffic, connection, now));
    }

    /**
     * A counted replica fetcher with the fetcher threads its follower runs at least: the follower read
     * once from its client.id when it was counted, not parsed again each round.
     */
    private KafkaSettings withFollowerFetchers(KafkaSettings settings, BrokerConnection broker) {
        BrokerConnection.FetcherClaim claim = broker == null ? null : broker.fetcher;
        int follower = claim == null || !claim.counted ? -1 : claim.follower;
        FetcherCounts counts = follower < 0 ? null : fetchersByFollower.get(follower);
        int fetchers = counts == null ? 0 : counts.atLeast();
        return fetchers == 0 ? settings : settings.withFollowerFetchersAtLeast(fetchers);
    }

    /**
     * What the producer's records held of its buffer.memory, where it pushed its buffer gauges on this
     * connection lately (KIP-714): the same figures the reporter reads at the producer's own end, which
     * tell a producer its pipeline holds (a backlog) from one its application paces.
     */
    static ProduceTraffic withPushedBuffer(ProduceTraffic traffic, TrackedConnection connection, long nowNanos) {
        return connection
                .pushed()
                .filter(pushed -> pushed.freshAt(nowNanos))
                .filter(pushed -> pushed.figure(Figure.BUFFER_TOTAL_BYTES).isPresent()
                        && pushed.figure(Figure.BUFFER_AVAILABLE_BYTES).isPresent())
                .map(pushed -> traffic.withBuffer(
                        pushed.figure(Figure.BUFFER_TOTAL_BYTES).getAsDouble(),
                        pushed.figure(Figure.BUFFER_AVAILABLE_BYTES).getAsDouble()))
                .orElse(traffic);
    }

    /** The addresses part of a broker-side connection id. */
    public static String addressKey(InetSocketAddress local, InetSocketAddress remote) {
        return local.getAddress().getHostAddress() + ":" + local.getPort() + "-"
                + remote.getAddress().getHostAddress() + ":" + remote.getPort();
    }

    /** 3.x ends the id with "-index", 4.x with "-processor-index": the addresses come before either. */
    private BrokerConnection claimAdopted(String connectionId) {
        TrackedConnection connection = null;
        String prefix = connectionId;
        for (int suffixes = 0; suffixes < 2 && connection == null; suffixes++) {
            int dash = prefix.lastIndexOf('-');
            if (dash < 0) {
                return null;
            }
            prefix = prefix.substring(0, dash);
            connection = adoptedByAddresses.remove(prefix);
        }
        if (connection == null) {
            return null;
        }
        registered(connectionId, connection);
        return byConnectionId.get(connectionId);
    }
}
