package io.tcpsight.connect.internal.observation;

import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.MirrorClient;
import io.tcpsight.internal.model.ResolvedServers;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.connect.health.ConnectClusterState;

/**
 * The settings a Connect task client runs with, as Connect builds them: the worker's
 * {@code consumer.*} / {@code producer.*}, then the connector's {@code consumer.override.*} /
 * {@code producer.override.*} on top; or, for a client MirrorMaker 2 builds itself, its
 * connector's MM2 client settings. Placeholders are left out: their values are unknown here.
 */
final class ConnectClientSettings {
    private final Map<String, String> workerConfig;
    private final Supplier<ConnectClusterState> cluster;
    /** Connector configs read this round: settings are asked per connection, and the herder answers each read. */
    private final Map<String, Map<String, String>> connectorConfigs = new HashMap<>();
    /** Each other cluster's bootstrap.servers value, resolved once a minute (the sampler thread only). */
    private final Map<String, ResolvedServers> resolvedServers = new HashMap<>();

    private static final int MOST_CLUSTERS = 64;

    ConnectClientSettings(Map<String, String> workerConfig, Supplier<ConnectClusterState> cluster) {
        this.workerConfig = workerConfig;
        this.cluster = cluster;
    }

    /** Forgets the connector configs read so far; called once per round. */
    void newRound() {
        connectorConfigs.clear();
    }

    KafkaSettings forClient(String clientId) {
        ClientKind kind = ClientKind.fromClientId(clientId);
        Map<String, String> effective = new HashMap<>();
        if (kind.isMirror()) {
            // MM2 builds its clients from its connector's config alone (MirrorConnectorConfig):
            // consumer.*, then source.consumer.* over it for a source-side consumer. Worker settings and
            // overrides do not reach them; source.cluster.* gives only the address and security.
            MirrorClient client = MirrorClient.fromClientId(clientId).get();
            Map<String, String> connector = connectorConfigs.computeIfAbsent(client.connector(), this::connectorConfig);
            for (String prefix : client.connectorPrefixes()) {
                copyStripped(connector, prefix, effective);
            }
        } else if (kind.isConnect()) {
            copyStripped(workerConfig, kind.connectWorkerPrefix(), effective);
            ClientKind.connectorName(clientId)
                    .ifPresent(connector -> copyStripped(
                            connectorConfigs.computeIfAbsent(connector, this::connectorConfig),
                            kind.connectorOverridePrefix(),
                            effective));
        } else {
            return KafkaSettings.unknown(); // the worker's own clients and unnamed sockets
        }
        effective.values().removeIf(value -> value == null || value.contains("${"));
        return KafkaSettings.fromClientConfig(effective, kind);
    }

    /**
     * Whether a client's per-connection byte totals can equal the kernel's: plaintext only. A task
     * client's protocol is the worker's consumer.* / producer.* under the connector's overrides (Connect
     * does not pass the worker's own security.protocol to them); the worker's own clients use its
     * top-level one.
     */
    boolean countsBytesAsTheKernel(String clientId) {
        ClientKind kind = ClientKind.fromClientId(clientId);
        if (kind.isConnect() || kind.isMirror()) {
            return forClient(clientId).countsBytesAsTheKernel();
        }
        return KafkaSettings.fromClientConfig(workerConfig, kind).countsBytesAsTheKernel();
    }

    /**
     * The brokers a task client reaches when that is not the worker's cluster, resolved: an MM2
     * client's own side ({@code source.cluster.bootstrap.servers} for the replication consumer and the
     * "-source-" roles, else the target's), a Connect task client's
     * {@code consumer.override.bootstrap.servers} (or {@code producer.}/{@code admin.}); empty for the
     * worker's own cluster. Present but empty when another cluster's address is unknown here (a
     * placeholder, a host that does not resolve): no path is then certainly that cluster's. A port
     * alone never says it: an MM2 worker often reaches both clusters on 9092.
     */
    Optional<Predicate<InetSocketAddress>> otherCluster(String clientId) {
        ClientKind kind = ClientKind.fromClientId(clientId);
        if (kind.isMirror()) {
            MirrorClient client = MirrorClient.fromClientId(clientId).get();
            Map<String, String> connector = connectorConfigs.computeIfAbsent(client.connector(), this::connectorConfig);
            String side = client.talksToSource() ? "source" : "target";
            return Optional.of(resolved(connector.get(side + ".cluster.bootstrap.servers")));
        }
        if (!kind.isConnect()) {
            return Optional.empty();
        }
        Map<String, String> connector = ClientKind.connectorName(clientId)
                .map(name -> connectorConfigs.computeIfAbsent(name, this::connectorConfig))
                .orElse(Map.of());
        String override = connector.get(kind.connectorOverridePrefix() + "bootstrap.servers");
        return override == null ? Optional.empty() : Optional.of(resolved(override));
    }

    /** The addresses of a bootstrap.servers value; none for a placeholder, whose value is unknown here. */
    private Predicate<InetSocketAddress> resolved(String bootstrapServers) {
        if (bootstrapServers == null || bootstrapServers.contains("${")) {
            return remote -> false;
        }
        if (resolvedServers.size() >= MOST_CLUSTERS && !resolvedServers.containsKey(bootstrapServers)) {
            resolvedServers.clear(); // connectors came and went; those still here are resolved again
        }
        return resolvedServers.computeIfAbsent(bootstrapServers, ResolvedServers::new)::contains;
    }

    /** A connector's raw config, from the herder. */
    private Map<String, String> connectorConfig(String connector) {
        try {
            ConnectClusterState state = cluster.get();
            Map<String, String> config = state == null ? null : state.connectorConfig(connector);
            return config == null ? Collections.emptyMap() : config;
        } catch (RuntimeException unknownConnector) {
            return Collections.emptyMap();
        }
    }

    private static void copyStripped(Map<String, String> from, String prefix, Map<String, String> to) {
        for (Map.Entry<String, String> entry : from.entrySet()) {
            if (entry.getKey().startsWith(prefix)) {
                to.put(entry.getKey().substring(prefix.length()), entry.getValue());
            }
        }
    }
}
