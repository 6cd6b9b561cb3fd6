package io.tcpsight.internal.kafka;

import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ClientConnectionIds;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.sampling.AgentHookNames;
import io.tcpsight.internal.sampling.ByteCountAttribution;
import io.tcpsight.internal.sampling.ByteCountAttribution.ClientConnection;
import io.tcpsight.internal.sampling.ByteCountAttribution.SocketCounts;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * Which of the JVM's broker sockets are one reporter's own client's, named only when certain.
 * Every socket to a bootstrap port is tracked, unplaced. With the tcpsight agent in the JVM its
 * hooks name each socket; otherwise a socket is named when its kernel byte counts and one
 * plaintext reporting client's per-connection totals agree exactly and uniquely over several
 * rounds ({@link ByteCountAttribution}), and loses the name at the first contradiction. A socket
 * named as another reporting client's is released and never tracked again. The rest stay
 * unplaced: they raise no finding of their own (a client without the reporter, TLS), and the
 * client's settings are judged on the measured path instead.
 */
public final class ClientSocketOwnership {
    /** The live reporters' claims in this class loader: a JVM's clients that report to tcpsight. */
    private static final Set<ClientSocketOwnership> LIVE = ConcurrentHashMap.newKeySet();
    /** At most this many foreign sockets remembered; past it the set starts again (they are matched again). */
    private static final int MAX_FOREIGN = 4096;

    private static final String READ = "incoming-byte-total";
    private static final String WRITTEN = "outgoing-byte-total";

    private final String clientId;
    private final BulkFlow clientFlow;
    /** Whether this client's node byte totals can equal the kernel's (plaintext). */
    private final boolean countsComparable;
    /** This client's per-node byte totals. */
    private final ClientMetricTable nodeMetrics =
            new ClientMetricTable(name -> name.group().endsWith("-node-metrics")
                    && (name.name().equals(READ) || name.name().equals(WRITTEN))
                    && name.tags().containsKey("node-id"));

    private final Set<Long> foreignInodes = ConcurrentHashMap.newKeySet();
    private final ByteCountAttribution attribution = new ByteCountAttribution();
    private List<ClientConnection> beforeSample = List.of();

    public ClientSocketOwnership(String clientId, BulkFlow clientFlow, boolean countsComparable) {
        this.clientId = clientId;
        this.clientFlow = clientFlow;
        this.countsComparable = countsComparable;
    }

    public void live() {
        LIVE.add(this);
    }

    public void closed() {
        LIVE.remove(this);
    }

    /** Keeps the node byte totals among the client's metrics (init and metricChange). */
    public void metric(KafkaMetric metric) {
        nodeMetrics.metric(metric);
    }

    public void removed(KafkaMetric metric) {
        nodeMetrics.removed(metric);
    }

    /** Not a socket already found to be another client's. */
    public boolean mayBeOwn(long inode) {
        return !foreignInodes.contains(inode);
    }

    /** Whether any of the sockets is known to be this client's. */
    public boolean anyOwn(List<TrackedConnection> sampled) {
        for (TrackedConnection connection : sampled) {
            ConnectionIdentity identity = connection.identity();
            if (identity.ownerKnownBy().known()
                    && identity.clientId().orElse("").equals(clientId)) {
                return true;
            }
        }
        return false;
    }

    /** Before the round's kernel sample: every reporting client's totals, for the bracket. */
    public void beforeRound() {
        beforeSample = AgentHookNames.present() ? List.of() : everyComparableClient();
    }

    /**
     * After the kernel sample: names this client's sockets where certain, releases the sockets that
     * are certainly another reporting client's, and takes a name back at the first contradiction.
     */
    public void claim(List<TrackedConnection> sampled, ConnectionRegistry registry) {
        if (AgentHookNames.present()) {
            claimFromHooks(sampled, registry);
            return;
        }
        List<SocketCounts> sockets = new ArrayList<>();
        Map<Long, TrackedConnection> byInode = new HashMap<>();
        for (TrackedConnection connection : sampled) {
            SocketCounts.of(connection, null).ifPresent(counts -> {
                sockets.add(counts);
                byInode.put(connection.inode(), connection);
            });
        }
        if (sockets.isEmpty()) {
            return;
        }
        List<ClientConnection> clients = ByteCountAttribution.bracket(beforeSample, everyComparableClient());
        Map<Long, ClientConnection> owners = attribution.round(sockets, clients);
        byInode.forEach((inode, connection) -> {
            ClientConnection owner = owners.get(inode);
            if (owner == null) {
                if (connection.identity().ownerKnownBy() == OwnerKnownBy.BYTE_COUNTS) {
                    connection.updateIdentity(ByteCountAttribution::unnamed); // contradicted: the name goes
                }
            } else if (owner.clientId.equals(clientId)) {
                connection.updateIdentity(owner.naming(null));
            } else {
                foreign(connection, registry);
            }
        });
    }

    private void claimFromHooks(List<TrackedConnection> sampled, ConnectionRegistry registry) {
        for (TrackedConnection connection : sampled) {
            if (connection.identity().ownerKnownBy() == OwnerKnownBy.HOOKS) {
                continue;
            }
            Optional<UnaryOperator<ConnectionIdentity>> naming = AgentHookNames.naming(connection);
            if (naming.isEmpty()) {
                continue;
            }
            ConnectionIdentity named = naming.get().apply(connection.identity());
            if (named.clientId().orElse("").equals(clientId)) {
                connection.updateIdentity(naming.get());
            } else {
                foreign(connection, registry);
            }
        }
    }

    private void foreign(TrackedConnection connection, ConnectionRegistry registry) {
        if (foreignInodes.size() >= MAX_FOREIGN) {
            foreignInodes.clear();
        }
        foreignInodes.add(connection.inode());
        attribution.forget(connection.inode());
        registry.forget(connection);
    }

    /** The JVM's reporting clients whose counts can be the kernel's: plaintext ones. */
    private static List<ClientConnection> everyComparableClient() {
        List<ClientConnection> all = new ArrayList<>();
        for (ClientSocketOwnership reporter : LIVE) {
            if (reporter.countsComparable) {
                all.addAll(reporter.ownConnections());
            }
        }
        return all;
    }

    /** This client's connections as its node metrics count them. */
    List<ClientConnection> ownConnections() {
        Map<String, long[]> byNode = nodeMetrics.byNode(READ, WRITTEN);
        List<ClientConnection> connections = new ArrayList<>();
        byNode.forEach((node, totals) -> {
            if (totals[0] >= 0 && totals[1] >= 0) {
                connections.add(new ClientConnection(
                        clientFlow.name(),
                        clientId,
                        node,
                        totals[0],
                        totals[1],
                        ClientConnectionIds.flow(clientFlow, node)));
            }
        });
        return connections;
    }
}
