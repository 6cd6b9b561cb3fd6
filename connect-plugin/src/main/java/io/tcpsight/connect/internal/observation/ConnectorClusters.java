package io.tcpsight.connect.internal.observation;

import io.tcpsight.internal.model.BootstrapServers;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.connect.health.ConnectClusterState;

/**
 * The broker ports of the Kafka clusters the connectors talk to besides the worker's own: every
 * {@code *bootstrap.servers} in their configs ({@code source.cluster.bootstrap.servers} of a
 * MirrorMaker 2 connector, {@code consumer.override.bootstrap.servers}, a connector's own
 * client's). A socket to one of these ports is a candidate; byte counts then tell whether a
 * Kafka client of this JVM owns it. Brokers that advertise a port other than their bootstrap's
 * are missed. Read again when the connectors change, else every 30 s (a config update keeps the
 * connector's name).
 */
final class ConnectorClusters {
    private static final long REFRESH_NANOS = Duration.ofSeconds(30).toNanos();

    private final Supplier<ConnectClusterState> cluster;
    private volatile Set<Integer> ports = Collections.emptySet();
    private long readAt;
    private boolean read;
    private Set<String> connectorsRead = Collections.emptySet();

    ConnectorClusters(Supplier<ConnectClusterState> cluster) {
        this.cluster = cluster;
    }

    Set<Integer> ports() {
        return ports;
    }

    /** Reads the connectors' configs again when a connector came or went, or every 30 s (sampler thread). */
    void refreshIfStale() {
        long now = System.nanoTime();
        ConnectClusterState state = cluster.get();
        if (state == null) {
            return; // before the REST extension registered
        }
        Set<String> connectors = new HashSet<>(state.connectors());
        if (read && now - readAt < REFRESH_NANOS && connectors.equals(connectorsRead)) {
            return;
        }
        connectorsRead = connectors;
        Set<Integer> found = new HashSet<>();
        for (String connector : connectors) {
            try {
                found.addAll(bootstrapPorts(state.connectorConfig(connector)));
            } catch (RuntimeException deleted) {
                // removed between the listing and the read
            }
        }
        ports = Collections.unmodifiableSet(found);
        readAt = now;
        read = true;
    }

    /** The ports of every {@code *bootstrap.servers} value in a connector config; placeholders are skipped. */
    static Set<Integer> bootstrapPorts(Map<String, String> config) {
        Set<Integer> found = new HashSet<>();
        if (config == null) {
            return found;
        }
        for (Map.Entry<String, String> entry : config.entrySet()) {
            String value = entry.getValue();
            if (entry.getKey().endsWith("bootstrap.servers") && value != null && !value.contains("${")) {
                for (InetSocketAddress server : BootstrapServers.parse(value)) {
                    found.add(server.getPort());
                }
            }
        }
        return found;
    }
}
