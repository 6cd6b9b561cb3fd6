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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * Which of the JVM's broker sockets are one reporter's own client's. Alone in its JVM a reporter
 * claims every socket to a bootstrap port. With other reporting clients beside it, the sockets'
 * kernel byte counts are matched against every reporting client's per-connection totals (Kafka's
 * node metrics; {@link ByteCountAttribution}): a socket given to another client is released and
 * never tracked again, one given to this client is confirmed, and one not told yet (a tie) is
 * sampled but not judged. Plaintext counts match exactly; where they never match (TLS counts
 * differ from TCP's), a reporter beside others judges nothing rather than another client's socket.
 */
final class OwnSockets {
    /** The live reporters' claims in this class loader: a JVM's clients that report to tcpsight. */
    private static final Set<OwnSockets> LIVE = ConcurrentHashMap.newKeySet();
    /** At most this many foreign sockets remembered; past it the set starts again (they are matched again). */
    private static final int MAX_FOREIGN = 4096;

    private final String clientId;
    private final BulkFlow clientFlow;
    /** This client's node metrics: "node/incoming-byte-total" or "node/outgoing-byte-total" -> metric. */
    private final Map<String, KafkaMetric> nodeMetrics = new ConcurrentHashMap<>();

    private final Set<Long> foreignInodes = ConcurrentHashMap.newKeySet();
    private List<ClientConnection> beforeSample = List.of();

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

    /** Whether the rules may judge a tracked socket: always when alone in the JVM, else once confirmed as this client's. */
    boolean judged(TrackedConnection connection) {
        return LIVE.size() < 2 || connection.ownerKey() != null;
    }

    /** Before the round's kernel sample: every reporting client's totals, for the bracket. */
    void beforeRound() {
        beforeSample = LIVE.size() > 1 ? everyClient() : List.of();
    }

    /** After the kernel sample: confirms this client's sockets and releases the others' (only with other reporters). */
    void claim(List<TrackedConnection> sampled, ConnectionRegistry registry) {
        if (LIVE.size() < 2) {
            return;
        }
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
        if (sockets.isEmpty()) {
            return;
        }
        List<ClientConnection> clients = ByteCountAttribution.bracket(beforeSample, everyClient());
        ByteCountAttribution.attributeConnections(sockets, clients).forEach((fd, owner) -> {
            TrackedConnection connection = byFd.get(fd);
            if (owner.clientId.equals(clientId)) {
                connection.ownerKey("node-" + owner.nodeId);
                String broker = ClientConnectionIds.brokerNode(owner.nodeId);
                connection.updateIdentity(identity -> {
                    ConnectionIdentity own = identity.withFlow(owner.flow);
                    return broker == null || broker.equals(ClientConnectionIds.BOOTSTRAP)
                            ? own
                            : own.withNodeId(broker);
                });
            } else {
                if (foreignInodes.size() >= MAX_FOREIGN) {
                    foreignInodes.clear();
                }
                foreignInodes.add(connection.inode());
                registry.release(connection);
            }
        });
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
