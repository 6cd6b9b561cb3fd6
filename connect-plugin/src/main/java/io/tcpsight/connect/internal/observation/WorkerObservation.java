package io.tcpsight.connect.internal.observation;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.connect.internal.state.PluginState;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.export.ConnectionMeters;
import io.tcpsight.internal.model.BootstrapServers;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.model.ResolvedServers;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.runtime.ObservationRuntime;
import io.tcpsight.internal.sampling.AgentHookNames;
import io.tcpsight.internal.sampling.ByteCountAttribution;
import io.tcpsight.internal.sampling.MeasuredPaths;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.ProcessSocket;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.connect.health.ConnectClusterState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's Kafka connections, observed: to its own cluster, and to any cluster a connector
 * names (MirrorMaker 2's source, a {@code consumer.override.bootstrap.servers}). A process census
 * finds them; a socket is named only when certain (the agent's hooks, or byte counts that agree
 * exactly: {@link ByteCountAttribution}), and each connector's settings are judged on the
 * measured path whatever is named ({@link ClientSettingsOnPaths}); the batched sampler and the shared rules judge them, with the
 * settings each client really runs with (worker consumer.* / producer.* under the connector's
 * overrides; an MM2 client's from its connector). Runs on one daemon thread.
 */
public final class WorkerObservation implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerObservation.class);
    static final String JMX_TYPE = "ConnectWorker";

    private final ObservationRuntime runtime;
    private final BrokerDirectory brokers;
    private final ConnectClientSettings clientSettings;
    private final ConnectorClusters otherClusters;
    private final Set<Integer> bootstrapPorts = new HashSet<>();
    /** The worker's bootstrap servers, resolved once a minute: brokers its cluster's paths certainly lead to. */
    private final ResolvedServers workerBootstrap;
    /** The clients' byte totals read just before this round's kernel sample (see {@link ByteCountAttribution#bracket}). */
    private List<ByteCountAttribution.ClientConnection> clientsBeforeSample = List.of();

    private final ByteCountAttribution attribution = new ByteCountAttribution();
    /** The Kafka clients this round's byte-count read found in the JVM. */
    private Set<String> clientIdsNow = Set.of();

    private final ClientSettingsOnPaths settingsOnPaths;
    private final ProducerTrafficFromJmx producerTraffic = new ProducerTrafficFromJmx();

    private final PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** Held here: Micrometer keeps a function meter's state object only weakly. */
    private final WorkerMeters workerMeters = new WorkerMeters();

    public WorkerObservation(
            Map<String, String> workerConfig,
            TcpsightConfig config,
            Supplier<ConnectClusterState> cluster,
            String workerName) {
        brokers = new BrokerDirectory(workerConfig);
        clientSettings = new ConnectClientSettings(workerConfig, cluster);
        otherClusters = new ConnectorClusters(cluster);
        for (InetSocketAddress server : BootstrapServers.parse(workerConfig.get("bootstrap.servers"))) {
            bootstrapPorts.add(server.getPort());
        }
        workerBootstrap = new ResolvedServers(workerConfig.get("bootstrap.servers"));
        settingsOnPaths = new ClientSettingsOnPaths(clientSettings, this::certainlyOnWorkerCluster, config);
        runtime = ObservationRuntime.builder("tcpsight", config)
                .serviceName("tcpsight-connect")
                .log(LOG::info, LOG::warn)
                .samplerThread("tcpsight-connect-sampler")
                .settings(this::settingsFor)
                .beforeRound(() -> producerTraffic.round(System.nanoTime()))
                .beforeRound(brokers::refreshIfStale)
                .beforeRound(otherClusters::refreshIfStale)
                .census(this::isBrokerConnection, this::identify)
                .beforeRound(this::beforeSample)
                .namer(this::name)
                .roundFindingSource(this::settingsOnPaths)
                .jmx(JMX_TYPE, workerName)
                .exporter("Prometheus meters", this::bindMeters)
                .build();
    }

    public WorkerObservation start() {
        runtime.start();
        return this;
    }

    public ConnectionMonitor monitor() {
        return runtime.monitor();
    }

    public void scrape(OutputStream out) throws IOException {
        prometheus.scrape(out);
    }

    void round() {
        runtime.round();
    }

    /** Binds the meters; the runtime closes the registry with the rest. */
    private AutoCloseable bindMeters(ConnectionMonitor monitor) {
        new ConnectionMeters(monitor).bindTo(prometheus);
        workerMeters.bindTo(prometheus);
        return prometheus::close;
    }

    private void beforeSample() {
        clientSettings.newRound();
        clientsBeforeSample = AgentHookNames.present() ? List.of() : ClientNodeMetrics.read();
    }

    /** A socket to the worker's cluster, or to a port another cluster's bootstrap.servers in a connector config names. */
    private boolean isBrokerConnection(ProcessSocket socket) {
        int port = socket.remote().getPort();
        return onWorkerCluster(socket.remote()) || otherClusters.ports().contains(port);
    }

    /**
     * A path to one of the worker cluster's brokers by its address (a bootstrap server, or a broker
     * the cluster describes): the paths whose RTT judges a task client's settings. Another cluster
     * on the same port is not this one.
     */
    private boolean certainlyOnWorkerCluster(InetSocketAddress remote) {
        return workerBootstrap.contains(remote) || brokers.nodeAt(remote) != null;
    }

    private boolean onWorkerCluster(InetSocketAddress remote) {
        int port = remote.getPort();
        return bootstrapPorts.contains(port) || brokers.brokerPorts().contains(port);
    }

    private ConnectionIdentity identify(ProcessSocket socket) {
        ConnectionIdentity identity = ConnectionIdentity.of(Role.CLIENT, socket.local(), socket.remote());
        String node = brokers.nodeAt(socket.remote());
        return node == null ? identity : identity.withNodeId(node);
    }

    /**
     * Names the owner of every connection where it is certain: from the agent's hooks when the agent
     * runs in this JVM, else from byte counts that agree exactly and uniquely over several rounds
     * (plaintext clients only), checked again every round; a contradicted name is taken back.
     */
    private void name(List<TrackedConnection> sampled) {
        if (AgentHookNames.present()) {
            for (TrackedConnection connection : sampled) {
                if (connection.identity().ownerKnownBy() != OwnerKnownBy.HOOKS) {
                    AgentHookNames.naming(connection).ifPresent(connection::updateIdentity);
                }
            }
            clientIdsNow = Set.of();
            return;
        }
        List<ByteCountAttribution.SocketCounts> sockets = new ArrayList<>();
        Map<Long, TrackedConnection> byInode = new HashMap<>();
        for (TrackedConnection connection : sampled) {
            ByteCountAttribution.SocketCounts.of(
                            connection,
                            brokers.nodeAt(connection.identity().remote().orElse(null)))
                    .ifPresent(counts -> {
                        sockets.add(counts);
                        byInode.put(connection.inode(), connection);
                    });
        }
        List<ByteCountAttribution.ClientConnection> after = ClientNodeMetrics.read();
        Map<String, Boolean> plaintext = new HashMap<>(); // per client, not per connection: one config read each
        List<ByteCountAttribution.ClientConnection> comparable = new ArrayList<>();
        for (ByteCountAttribution.ClientConnection client : ByteCountAttribution.bracket(clientsBeforeSample, after)) {
            if (plaintext.computeIfAbsent(client.clientId, clientSettings::countsBytesAsTheKernel)) {
                comparable.add(client); // TLS and SASL counts never equal the kernel's
            }
        }
        clientIdsNow = plaintext.keySet();
        Map<Long, ByteCountAttribution.ClientConnection> owners = attribution.round(sockets, comparable);
        byInode.forEach((inode, connection) -> {
            ByteCountAttribution.ClientConnection client = owners.get(inode);
            if (client != null) {
                // a broker of another cluster is not in the directory: its node is the client's connection id
                connection.updateIdentity(client.naming(
                        brokers.nodeAt(connection.identity().remote().orElse(null))));
            } else if (connection.identity().ownerKnownBy() == OwnerKnownBy.BYTE_COUNTS) {
                connection.updateIdentity(ByteCountAttribution::unnamed); // contradicted: the name goes
            }
        });
    }

    /** Each connector's settings on the measured path, for connectors none of whose sockets is named. */
    private List<Finding> settingsOnPaths(List<TrackedConnection> sampled) {
        // the policy judges a connector's overrides on this path as the worker's cluster's: never another's on its port
        MeasuredPaths.slowest(sampled, this::certainlyOnWorkerCluster)
                .ifPresent(path -> PluginState.worker().workerPathMeasured(path.rttMicros));
        return settingsOnPaths.judge(clientIdsNow, sampled);
    }

    /** The client settings a connection's owner runs with, as far as the worker and connector configs tell. */
    /** A task client's settings; a producer's named connection also carries what it sent that broker. */
    KafkaSettings settingsFor(TrackedConnection connection) {
        String clientId = connection.identity().clientId().orElse(null);
        KafkaSettings settings = clientSettings.forClient(clientId);
        Optional<String> node = connection.identity().nodeId();
        if (clientId == null
                || node.isEmpty()
                || !connection.identity().ownerKnownBy().known()) {
            return settings;
        }
        return producerTraffic
                .of(clientId, node.get())
                .map(settings::withProduceTraffic)
                .orElse(settings);
    }

    @Override
    public void close() {
        runtime.close();
        brokers.close();
    }
}
