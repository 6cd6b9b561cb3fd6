package io.tcpsight.kafka;

import io.tcpsight.model.BulkFlow;
import io.tcpsight.model.ClientConnectionIds;
import io.tcpsight.model.ConnectionIdentity;
import io.tcpsight.sampling.ByteCountAttribution;
import io.tcpsight.sampling.ByteCountAttribution.ClientConnection;
import io.tcpsight.sampling.ByteCountAttribution.SocketCounts;
import io.tcpsight.sampling.ConnectionRegistry;
import io.tcpsight.sampling.ConnectionSample;
import io.tcpsight.sampling.TrackedConnection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * Which of the JVM's broker sockets are one reporter's own client's. Every socket to a bootstrap
 * port is tracked; its kernel byte counts are matched against every reporting client's
 * per-connection totals (Kafka's node metrics; {@link ByteCountAttribution}): a socket given to
 * this client is confirmed and judged, one given to another is released and never tracked again,
 * and once counts have matched here, one that matches nobody for three rounds belongs to a client
 * without the reporter and is released too. Plaintext counts match exactly; TLS counts never do
 * (they are not TCP's), and then a reporter alone in its JVM judges every socket to its brokers,
 * while one beside other reporters judges nothing rather than another client's socket.
 */
final class OwnSockets {
    /** The live reporters' claims in this class loader: a JVM's clients that report to tcpsight. */
    private static final Set<OwnSockets> LIVE = ConcurrentHashMap.newKeySet();
    /** At most this many foreign sockets remembered; past it the set starts again (they are matched again). */
    private static final int MAX_FOREIGN = 4096;
    /** Rounds a socket may match no reporting client before it counts as a non-reporting client's. */
    private static final int ROUNDS_UNMATCHED = 3;

    private final String clientId;
    private final BulkFlow clientFlow;
    /** This client's node metrics: "node/incoming-byte-total" or "node/outgoing-byte-total" -> metric. */
    private final Map<String, KafkaMetric> nodeMetrics = new ConcurrentHashMap<>();

    private final Set<Long> foreignInodes = ConcurrentHashMap.newKeySet();
    private List<ClientConnection> beforeSample = List.of();
    /** Byte counts matched one of this client's sockets: they are comparable here (plaintext). */
    private volatile boolean countsAgree;
    /** Rounds with sockets to match in which none matched this client: past a few, counts are not TCP's (TLS). */
    private volatile int roundsUnmatched;
    /** Rounds each unconfirmed socket has gone unmatched; only sampled, unconfirmed sockets are kept. */
    private final Map<TrackedConnection, Integer> unmatchedRounds = new HashMap<>();

    OwnSockets(String clientId, BulkFlow clientFlow) {
        this.clientId = clientId;
        this.clientFlow = clientFlow;
    }

    void live() {
        LIVE.add(this);
    }

    void closed() {
        LIVE.remove(this);
    }

    /** Keeps the node byte totals among the client's metrics (init and metricChange). */
    void metric(KafkaMetric metric) {
        String key = key(metric.metricName());
        if (key != null) {
            nodeMetrics.put(key, metric);
        }
    }

    void removed(KafkaMetric metric) {
        String key = key(metric.metricName());
        if (key != null) {
            nodeMetrics.remove(key, metric);
        }
    }

    private static String key(MetricName name) {
        String node = name.tags().get("node-id");
        boolean bytes = name.name().equals("incoming-byte-total") || name.name().equals("outgoing-byte-total");
        if (!bytes || node == null || !node.startsWith("node-") || !name.group().endsWith("-node-metrics")) {
            return null;
        }
        return node.substring("node-".length()) + "/" + name.name();
    }

    /** Not a socket already found to be another client's. */
    boolean mayBeOwn(long inode) {
        return !foreignInodes.contains(inode);
    }

    /**
     * Whether the rules may judge a tracked socket: once confirmed as this client's. Unconfirmed
     * sockets only when this reporter is alone in its JVM and its counts matched none of its sockets
     * in {@link #ROUNDS_UNMATCHED} rounds (TLS): it then judges by port, as nothing else can tell.
     */
    boolean judged(TrackedConnection connection) {
        return connection.ownerKey() != null
                || (LIVE.size() < 2 && !countsAgree && roundsUnmatched >= ROUNDS_UNMATCHED);
    }

    /** Before the round's kernel sample: every reporting client's totals, for the bracket. */
    void beforeRound() {
        beforeSample = everyClient();
    }

    /**
     * After the kernel sample: confirms this client's sockets and releases another reporting client's.
     * Once byte counts have matched one of this client's sockets (they are comparable: plaintext), a
     * socket that matches none of the JVM's reporting clients for {@link #ROUNDS_UNMATCHED} rounds is
     * another client's too (one without the reporter) and is released.
     */
    void claim(List<TrackedConnection> sampled, ConnectionRegistry registry) {
        List<SocketCounts> sockets = new ArrayList<>();
        Map<Integer, TrackedConnection> byFd = new HashMap<>();
        for (TrackedConnection connection : sampled) {
            ConnectionSample sample = connection.latest().orElse(null);
            if (connection.ownerKey() == null
                    && sample != null
                    && sample.bytesReceived().isPresent()
                    && sample.bytesAcked().isPresent()) {
                sockets.add(new SocketCounts(
                        connection.fd(),
                        null,
                        sample.bytesReceived().getAsLong(),
                        sample.bytesAcked().getAsLong()));
                byFd.put(connection.fd(), connection);
            }
        }
        unmatchedRounds.keySet().retainAll(new HashSet<>(byFd.values())); // a set: values() would make it quadratic
        if (sockets.isEmpty()) {
            return;
        }
        List<ClientConnection> clients = ByteCountAttribution.bracket(beforeSample, everyClient());
        Map<Integer, ClientConnection> owners = ByteCountAttribution.attributeConnections(sockets, clients);
        if (!countsAgree && roundsUnmatched < ROUNDS_UNMATCHED) {
            roundsUnmatched++;
        }
        owners.forEach((fd, owner) -> {
            TrackedConnection connection = byFd.get(fd);
            unmatchedRounds.remove(connection);
            if (owner.clientId.equals(clientId)) {
                countsAgree = true;
                connection.ownerKey("node-" + owner.nodeId);
                String broker = ClientConnectionIds.brokerNode(owner.nodeId);
                connection.updateIdentity(identity -> {
                    ConnectionIdentity own = identity.withFlow(owner.flow);
                    return broker == null || broker.equals(ClientConnectionIds.BOOTSTRAP)
                            ? own
                            : own.withNodeId(broker);
                });
            } else {
                foreign(connection, registry);
            }
        });
        for (TrackedConnection connection : byFd.values()) {
            if (countsAgree
                    && !owners.containsKey(connection.fd())
                    && unmatchedRounds.merge(connection, 1, Integer::sum) >= ROUNDS_UNMATCHED) {
                unmatchedRounds.remove(connection);
                foreign(connection, registry);
            }
        }
    }

    private void foreign(TrackedConnection connection, ConnectionRegistry registry) {
        if (foreignInodes.size() >= MAX_FOREIGN) {
            foreignInodes.clear();
        }
        foreignInodes.add(connection.inode());
        registry.forget(connection);
    }

    private static List<ClientConnection> everyClient() {
        List<ClientConnection> all = new ArrayList<>();
        for (OwnSockets reporter : LIVE) {
            all.addAll(reporter.ownConnections());
        }
        return all;
    }

    /** This client's connections as its node metrics count them. */
    List<ClientConnection> ownConnections() {
        Map<String, long[]> byNode = new HashMap<>();
        nodeMetrics.forEach((key, metric) -> {
            int slash = key.indexOf('/');
            long[] totals = byNode.computeIfAbsent(key.substring(0, slash), node -> new long[] {-1, -1});
            Object value = metric.metricValue();
            if (value instanceof Number) {
                totals[key.endsWith("incoming-byte-total") ? 0 : 1] = ((Number) value).longValue();
            }
        });
        List<ClientConnection> connections = new ArrayList<>();
        byNode.forEach((node, totals) -> {
            if (totals[0] >= 0 && totals[1] >= 0) {
                connections.add(new ClientConnection(
                        clientId, node, totals[0], totals[1], ClientConnectionIds.flow(clientFlow, node)));
            }
        });
        return connections;
    }
}
