package io.tcpsight.internal.kafka;

import io.tcpsight.internal.config.SecretMasking;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.config.ClientConfigRules;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.BootstrapServers;
import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.LogText;
import io.tcpsight.internal.model.ResolvedServers;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.runtime.ObservationRuntime;
import io.tcpsight.internal.sampling.MeasuredPaths;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.ProcessSocket;
import io.tcpsight.internal.tcp.TcpSockets;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * What {@code io.tcpsight.kafka.TcpsightMetricsReporter} does for a plain producer, consumer or
 * admin client, behind that class's fail-open guard.
 *
 * <p>At {@code configure()} it reads the client's buffer and fetch settings; once the client
 * runs, it samples this process's connections to the client's brokers (found by the process
 * census to the bootstrap servers' ports, each named only when certain: {@link ClientSocketOwnership}) on
 * its own daemon thread and raises
 * findings (small-receive-buffer, fetch-size-below-bdp, a producer's produce-pipeline-below-bdp
 * from its own request counts, and the TCP rules it can see) to the
 * log and to JMX as {@code io.tcpsight:type=ClientMetrics,name=<client.id>}. It never logs a
 * secret and never writes to a socket. It may throw (a bad setting is an
 * {@link io.tcpsight.internal.config.InvalidSettingException}); the reporter Kafka sees catches it.
 */
public final class ClientReporter {
    public static final String JMX_TYPE = "ClientMetrics";
    private static final List<String> SETTINGS_SHOWN = Arrays.asList(
            "receive.buffer.bytes",
            "send.buffer.bytes",
            "fetch.max.bytes",
            "max.partition.fetch.bytes",
            "bootstrap.servers");

    private final Consumer<String> info;
    private final Consumer<String> warn;
    private String clientId;
    private ClientKind kind;
    private KafkaSettings settings;
    private TcpsightConfig config;
    private Set<Integer> brokerPorts = Collections.emptySet();
    /** The bootstrap servers' addresses: the paths certainly to this client's cluster. */
    private ResolvedServers bootstrap = new ResolvedServers(null);

    private ObservationRuntime runtime;
    private ClientSocketOwnership ownSockets;
    private final ProducerRequestCounts produced = new ProducerRequestCounts();
    /** The client's kafka-metrics-count metric, by which an application's binder finds this reporter. */
    private volatile KafkaMetric listedBy;

    /** Logs through these sinks: the reporter's logger, or a test's list. */
    public ClientReporter(Consumer<String> info, Consumer<String> warn) {
        this.info = info;
        this.warn = warn;
    }

    public void configure(Map<String, ?> configs) {
        config = TcpsightConfig.from(configs);
        Object id = configs.get("client.id");
        clientId = id == null || String.valueOf(id).isEmpty() ? "unknown" : String.valueOf(id);
        kind = kindOf(clientId, configs);
        settings = KafkaSettings.fromClientConfig(configs, kind);
        ownSockets = new ClientSocketOwnership(
                clientId, BulkFlow.forClient(clientId, kind), settings.countsBytesAsTheKernel());
        brokerPorts = bootstrapPorts(configs.get("bootstrap.servers"));
        bootstrap = new ResolvedServers(configs.get("bootstrap.servers"));
        StringBuilder shown = new StringBuilder();
        Map<String, String> masked = SecretMasking.mask(configs);
        for (String key : SETTINGS_SHOWN) {
            if (masked.containsKey(key)) {
                shown.append(' ').append(key).append('=').append(masked.get(key));
            }
        }
        // one line whatever the client.id holds: a control character in it cannot forge a log line of its own
        info.accept(LogText.oneLine("tcpsight reporter for client.id=" + clientId + " ("
                + kind.name().toLowerCase() + "):" + shown));
    }

    static ClientKind kindOf(String clientId, Map<String, ?> configs) {
        ClientKind fromId = ClientKind.fromClientId(clientId);
        if (fromId != ClientKind.UNKNOWN) {
            return fromId;
        }
        if (configs.containsKey("key.deserializer") || configs.containsKey("group.id")) {
            return ClientKind.CONSUMER;
        }
        if (configs.containsKey("key.serializer")) {
            return ClientKind.PRODUCER;
        }
        return ClientKind.ADMIN;
    }

    static Set<Integer> bootstrapPorts(Object bootstrap) {
        Set<Integer> ports = new HashSet<>();
        for (InetSocketAddress server : BootstrapServers.parse(bootstrap)) {
            ports.add(server.getPort());
        }
        return ports;
    }

    /**
     * Whether a path is certainly to this client's cluster: its broker is a bootstrap server. A port
     * alone does not say it: in one JVM a client of another cluster listens on 9092 too.
     */
    boolean onThisCluster(InetSocketAddress remote) {
        return bootstrap.contains(remote);
    }

    public void init(List<KafkaMetric> metrics) {
        if (config == null) {
            return;
        }
        if (!TcpSockets.availability().isAvailable()) {
            warn.accept(TcpSockets.availability()
                    .unavailableLine(
                            "tcpsight reporter for client.id=" + clientId,
                            "the reporter is off and the client runs as if it were absent"));
            return;
        }
        TcpSockets.nativeAccessAdviceOnce().ifPresent(warn);
        metrics.forEach(ownSockets::metric);
        metrics.forEach(produced::metric);
        runtime = ObservationRuntime.builder("tcpsight reporter for client.id=" + clientId, config)
                .serviceName("tcpsight-reporter")
                .log(info, warn)
                // only a socket known to be its client's runs with its client's settings
                .settings(this::settingsOf)
                .beforeRound(() -> {
                    produced.round(System.nanoTime());
                    ownSockets.beforeRound();
                })
                .census(this::mayBeOwnBrokerConnection, ClientReporter::unplaced)
                .namer(sampled -> ownSockets.claim(sampled, runtime.registry()))
                .roundFindingSource(this::settingsOnPath)
                .jmx(JMX_TYPE, clientId)
                .samplerThread("tcpsight-reporter-" + clientId)
                .build();
        ownSockets.live();
        runtime.start();
        metrics.forEach(this::listIfCount);
    }

    /** Lists this reporter's monitor in the directory by its client's count metric, once it is at work. */
    private void listIfCount(KafkaMetric metric) {
        if (runtime != null && listedBy == null && ReporterDirectory.isCount(metric.metricName())) {
            listedBy = metric;
            ReporterDirectory.add(metric, runtime.monitor());
        }
    }

    /** The client's settings on a socket known to be its own, with what a producer sent that broker. */
    private KafkaSettings settingsOf(TrackedConnection connection) {
        ConnectionIdentity identity = connection.identity();
        if (!identity.ownerKnownBy().known()) {
            return KafkaSettings.unknown();
        }
        return kind == ClientKind.PRODUCER
                ? identity.nodeId()
                        .flatMap(produced::toNode)
                        .map(settings::withProduceTraffic)
                        .orElse(settings)
                : settings;
    }

    /** A socket found by the census: whose it is, is not known yet. */
    private static ConnectionIdentity unplaced(ProcessSocket socket) {
        return ConnectionIdentity.of(Role.CLIENT, socket.local(), socket.remote());
    }

    /**
     * While none of the client's sockets has a certain owner (TLS without the agent, or the first
     * rounds), its own buffer setting judged on the slowest path measured to its bootstrap servers:
     * certain without naming a socket. Its other brokers' addresses are not known here, so behind
     * a load balancer's address only the bootstrap connection's path is read.
     */
    List<Finding> settingsOnPath(List<TrackedConnection> sampled) {
        if (ownSockets.anyOwn(sampled)) {
            return List.of(); // its sockets speak for themselves
        }
        return MeasuredPaths.slowest(sampled, this::onThisCluster)
                .map(path -> ClientConfigRules.settingsOnMeasuredPath(
                        path.clientOnPath(clientId).withFlow(BulkFlow.forClient(clientId, kind)),
                        settings,
                        path.rttMicros,
                        config))
                .orElse(List.of());
    }

    /** A socket to a bootstrap port that byte counts did not give to another reporting client in this JVM. */
    private boolean mayBeOwnBrokerConnection(ProcessSocket socket) {
        return brokerPorts.contains(socket.remote().getPort()) && ownSockets.mayBeOwn(socket.inode());
    }

    /** The monitor behind this reporter, once init() ran; empty before, or when tcpsight is unavailable. */
    public Optional<ConnectionMonitor> monitor() {
        return runtime == null ? Optional.empty() : Optional.of(runtime.monitor());
    }

    public void metricChange(KafkaMetric metric) {
        if (ownSockets != null) {
            ownSockets.metric(metric); // only the per-connection byte totals, to tell this client's sockets
        }
        produced.metric(metric); // only a producer's request counts
        listIfCount(metric);
    }

    public void metricRemoval(KafkaMetric metric) {
        if (ownSockets != null) {
            ownSockets.removed(metric);
        }
        produced.removed(metric);
    }

    public void close() {
        if (listedBy != null) {
            ReporterDirectory.remove(listedBy);
        }
        if (ownSockets != null) {
            ownSockets.closed();
        }
        if (runtime != null) {
            runtime.close();
        }
    }
}
