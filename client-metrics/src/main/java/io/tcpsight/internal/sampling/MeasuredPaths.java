package io.tcpsight.internal.sampling;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The RTT of each broker path as a round measured it, whoever owns the sockets on it: the lowest
 * path RTT among the sockets to one broker address (a queue on one socket does not lengthen the
 * path).
 */
public final class MeasuredPaths {
    /** One broker path: where, the broker's node id if known, and its RTT. */
    public static final class Path {
        public final InetSocketAddress remote;
        public final String nodeId;
        public final long rttMicros;

        Path(InetSocketAddress remote, String nodeId, long rttMicros) {
            this.remote = remote;
            this.nodeId = nodeId;
            this.rttMicros = rttMicros;
        }

        /** A client identity on this path, with no socket: for findings on a client's settings. */
        public ConnectionIdentity clientOnPath(String clientId) {
            return ConnectionIdentity.of(Role.CLIENT, null, remote)
                    .withClientId(clientId)
                    .withNodeId(nodeId);
        }
    }

    private MeasuredPaths() {}

    /** The slowest path among the client sockets whose broker address {@code onCluster} accepts; empty when none was measured. */
    public static Optional<Path> slowest(List<TrackedConnection> sampled, Predicate<InetSocketAddress> onCluster) {
        Map<InetSocketAddress, Path> paths = new HashMap<>();
        for (TrackedConnection connection : sampled) {
            ConnectionIdentity identity = connection.identity();
            InetSocketAddress remote = identity.remote().orElse(null);
            Optional<ConnectionSample> sample = connection.latest();
            if (identity.role() != Role.CLIENT || remote == null || sample.isEmpty() || !onCluster.test(remote)) {
                continue;
            }
            long rtt = sample.get().pathRttMicros();
            if (rtt <= 0) {
                continue;
            }
            Path known = paths.get(remote);
            if (known == null || rtt < known.rttMicros) {
                String node = identity.nodeId().orElse(known == null ? null : known.nodeId);
                paths.put(remote, new Path(remote, node, rtt));
            }
        }
        return paths.values().stream().max((a, b) -> Long.compare(a.rttMicros, b.rttMicros));
    }
}
