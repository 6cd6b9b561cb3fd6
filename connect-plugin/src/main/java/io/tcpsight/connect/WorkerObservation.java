package io.tcpsight.connect;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.config.TcpsightConfig;
import io.tcpsight.connection.BootstrapServers;
import io.tcpsight.connection.CensusTracker;
import io.tcpsight.connection.ClientKind;
import io.tcpsight.connection.ConnectionIdentity;
import io.tcpsight.connection.ConnectionMonitor;
import io.tcpsight.connection.ConnectionRegistry;
import io.tcpsight.connection.ConnectionSample;
import io.tcpsight.connection.Role;
import io.tcpsight.connection.SamplingLoop;
import io.tcpsight.connection.TrackedConnection;
import io.tcpsight.diagnose.FindingsBoard;
import io.tcpsight.diagnose.KafkaSettings;
import io.tcpsight.diagnose.KernelFacts;
import io.tcpsight.export.TcpsightJmx;
import io.tcpsight.export.TcpsightMeterBinder;
import io.tcpsight.host.HostTcpFacts;
import io.tcpsight.tcp.ProcessSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.connect.health.ConnectClusterState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's own connections to its brokers, observed: a process census finds them, Kafka's
 * per-connection byte counts tell whose they are (see {@link ByteCountAttribution}), the batched
 * sampler and the shared rules judge them, with the settings each client really runs with
 * (worker consumer.* / producer.* under the connector's overrides). Runs on one daemon thread.
 */
final class WorkerObservation implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerObservation.class);
    static final String JMX_TYPE = "ConnectWorker";

    private final Map<String, String> workerConfig;
    private final Supplier<ConnectClusterState> cluster;
    private final ConnectionMonitor monitor;
    private final BrokerDirectory brokers;
    private final CensusTracker census;
    private final Set<Integer> bootstrapPorts = new HashSet<>();
    /** Connector configs read this round (settingsFor runs per connection; the herder answers each read). */
    private final Map<String, Map<String, String>> connectorConfigs = new HashMap<>();
    /** The clients' byte totals read just before this round's kernel sample (see {@link ByteCountAttribution#bracket}). */
    private List<ByteCountAttribution.ClientConnection> clientsBeforeSample = List.of();
    private final PrometheusMeterRegistry prometheus;
    private TcpsightJmx jmx;
    private SamplingLoop loop;

    WorkerObservation(Map<String, String> workerConfig, TcpsightConfig config, Supplier<ConnectClusterState> cluster) {
        this.workerConfig = workerConfig;
        this.cluster = cluster;
        ConnectionRegistry registry = new ConnectionRegistry(config.get(TcpsightConfig.MAX_TRACKED_CONNECTIONS).intValue());
        FindingsBoard board = new FindingsBoard(config.get(TcpsightConfig.FINDING_LOG_INTERVAL_MS), finding -> finding.logTo(LOG::info, LOG::warn));
        monitor = new ConnectionMonitor(registry, config, this::settingsFor, () -> KernelFacts.from(HostTcpFacts.current()), board);
        monitor.addNamer(this::name);
        brokers = new BrokerDirectory(workerConfig);
        for (InetSocketAddress server : BootstrapServers.parse(workerConfig.get("bootstrap.servers"))) {
            bootstrapPorts.add(server.getPort());
        }
        census = new CensusTracker(registry, this::isBrokerConnection, this::identify);
        prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new TcpsightMeterBinder(monitor).bindTo(prometheus);
        FunctionCounter.builder("tcpsight.startup.paced.builds", this, ignored -> pacerValue(StartupPacer::pacedBuilds))
                .description("task client builds that went through startup pacing").register(prometheus);
        FunctionCounter.builder("tcpsight.startup.capped.builds", this, ignored -> pacerValue(StartupPacer::cappedBuilds))
                .description("task client builds that would have waited longer than tcpsight.startup.max.wait.ms").register(prometheus);
        FunctionCounter.builder("tcpsight.startup.wait", this, ignored -> {
            StartupPacer pacer = StartupPacer.current();
            return pacer == null ? 0 : pacer.waitedSeconds();
        }).baseUnit("seconds").description("time task client builds waited for pacing").register(prometheus);
        Gauge.builder("tcpsight.provider.rtt", FetchAdvisor.shared(), advisor -> {
            java.time.Duration rtt = advisor.lastRtt();
            return rtt == null ? Double.NaN : rtt.toNanos() / 1e9;
        }).baseUnit("seconds").description("the RTT to the cluster the config provider sized fetches for").register(prometheus);
    }

    private static double pacerValue(java.util.function.ToLongFunction<StartupPacer> value) {
        StartupPacer pacer = StartupPacer.current();
        return pacer == null ? 0 : value.applyAsLong(pacer);
    }

    WorkerObservation start(String workerName) {
        try {
            jmx = TcpsightJmx.register(monitor, JMX_TYPE, workerName);
        } catch (javax.management.JMException | RuntimeException unavailable) {
            LOG.warn("tcpsight: JMX registration failed, findings go to the log and REST only: {}", unavailable.toString());
        }
        loop = new SamplingLoop("tcpsight-connect-sampler", monitor.config(), this::round, LOG::warn).start();
        return this;
    }

    ConnectionMonitor monitor() {
        return monitor;
    }

    String scrape() {
        return prometheus.scrape();
    }

    void round() {
        brokers.refreshIfStale();
        try {
            census.refresh();
        } catch (IOException unreadable) {
            throw new IllegalStateException("process census failed: " + unreadable.getMessage(), unreadable);
        }
        connectorConfigs.clear();
        clientsBeforeSample = hasUnnamed() ? KafkaClientConnections.read() : List.of();
        monitor.round();
    }

    private static boolean unnamed(TrackedConnection connection) {
        String clientId = connection.identity().clientId();
        return clientId == null || clientId.endsWith("-*");
    }

    private boolean hasUnnamed() {
        return monitor.registry().connections().stream().anyMatch(WorkerObservation::unnamed);
    }

    private boolean isBrokerConnection(ProcessSocket socket) {
        int port = socket.remote().getPort();
        return bootstrapPorts.contains(port) || brokers.brokerPorts().contains(port);
    }

    private ConnectionIdentity identify(ProcessSocket socket) {
        ConnectionIdentity identity = ConnectionIdentity.of(Role.CLIENT, socket.local(), socket.remote(), Instant.now());
        String node = brokers.nodeAt(socket.remote());
        return node == null ? identity : identity.withNodeId(node);
    }

    /**
     * Names the owner of every connection not yet known by its exact client.id, from the byte
     * counts this round just sampled and the clients' totals read just before and right after.
     */
    private void name(List<TrackedConnection> sampled) {
        List<ByteCountAttribution.SocketCounts> sockets = new ArrayList<>();
        Map<Integer, TrackedConnection> byFd = new HashMap<>();
        for (TrackedConnection connection : sampled) {
            ConnectionSample sample = connection.latest();
            if (unnamed(connection) && sample.bytesReceived() >= 0 && sample.bytesAcked() >= 0) {
                sockets.add(new ByteCountAttribution.SocketCounts(connection.fd(), brokers.nodeAt(connection.identity().remote()),
                        sample.bytesReceived(), sample.bytesAcked()));
                byFd.put(connection.fd(), connection);
            }
        }
        if (sockets.isEmpty()) {
            return;
        }
        List<ByteCountAttribution.ClientConnection> clients = ByteCountAttribution.bracket(clientsBeforeSample, KafkaClientConnections.read());
        ByteCountAttribution.attribute(sockets, clients).forEach((fd, clientId) -> {
            TrackedConnection connection = byFd.get(fd);
            String brokerNode = brokers.nodeAt(connection.identity().remote());
            connection.updateIdentity(identity -> {
                ConnectionIdentity named = identity.withClientId(clientId);
                return brokerNode != null ? named.withNodeId(brokerNode) : named;
            });
        });
    }

    /** The client settings a connection's owner runs with, as far as the worker and connector configs tell. */
    KafkaSettings settingsFor(TrackedConnection connection) {
        String clientId = connection.identity().clientId();
        ClientKind kind = ClientKind.fromClientId(clientId);
        if (!kind.isConnect()) {
            return KafkaSettings.unknown(); // the worker's own clients and unnamed sockets
        }
        Map<String, String> effective = new HashMap<>();
        String prefix = kind.connectWorkerPrefix();
        copyStripped(workerConfig, prefix, effective);
        ClientKind.connectorName(clientId).ifPresent(connector -> copyStripped(
                connectorConfigs.computeIfAbsent(connector, this::connectorConfig), prefix.replace(".", ".override."), effective));
        effective.values().removeIf(value -> value == null || value.contains("${"));
        return KafkaSettings.fromClientConfig(effective, kind);
    }

    /** A connector's raw config; asks the herder, so it is read once per connector and round. */
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

    @Override
    public void close() {
        if (loop != null) {
            loop.close();
        }
        if (jmx != null) {
            jmx.close();
        }
        brokers.close();
        prometheus.close();
    }
}
