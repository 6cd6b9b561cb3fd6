package io.tcpsight.doctor;

import io.tcpsight.config.InvalidSettingException;
import io.tcpsight.config.SettingKey;
import io.tcpsight.config.TcpsightConfig;
import io.tcpsight.diagnose.BrokerConfigRules;
import io.tcpsight.diagnose.Diagnosis;
import io.tcpsight.diagnose.Finding;
import io.tcpsight.diagnose.FindingJson;
import io.tcpsight.host.HostTcpFacts;
import io.tcpsight.model.BootstrapServers;
import io.tcpsight.model.ClientKind;
import io.tcpsight.model.ConnectionIdentity;
import io.tcpsight.model.KafkaSettings;
import io.tcpsight.model.KernelFacts;
import io.tcpsight.tuning.FetchSizing;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(name = "doctor", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Diagnoses the TCP path from this host to a Kafka cluster: this host's TCP sysctls and kernel, each broker's RTT "
                + "and handshake time, and a client config judged on real connections, with the recommended receive.buffer.bytes, "
                + "fetch.max.bytes and max.partition.fetch.bytes.",
            "Without --bootstrap-server (and no bootstrap.servers in --command-config) it starts an embedded single-node KRaft broker "
                + "on loopback and diagnoses that.",
            "Exit codes: 0 healthy (info findings at most), 1 warn or critical findings, 2 usage error, 3 the doctor failed."})
final class DoctorCommand implements Callable<Integer> {
    static final String DEFAULT_CLIENT_ID = "tcpsight-doctor";
    /** The broker settings the report shows and judges. */
    static final List<String> BROKER_KEYS = List.of("socket.send.buffer.bytes", "socket.receive.buffer.bytes", "socket.listen.backlog.size");

    @Spec
    private CommandSpec spec;

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "The cluster to diagnose. Default: bootstrap.servers from --command-config, else an embedded broker.")
    private String bootstrapServer;

    @Option(names = "--command-config", paramLabel = "FILE",
            description = "A Kafka client config (properties) to judge, as a consumer; tcpsight.* keys in it set the rules' thresholds.")
    private Path commandConfig;

    @Option(names = "--probe-topic", paramLabel = "TOPIC",
            description = "Also measure consume throughput of this topic with receive.buffer.bytes=65536, -1 and tcpsight's recommendation, "
                    + "side by side. Read-only on a named cluster; on the embedded broker the topic is created and filled.")
    private String probeTopic;

    @Option(names = "--probe-seconds", paramLabel = "SECONDS", defaultValue = "10",
            description = "How long each probe variant reads (1-600, default ${DEFAULT-VALUE}).")
    private int probeSeconds;

    @Option(names = "--set", paramLabel = "tcpsight.KEY=VALUE", mapFallbackValue = "",
            description = "A tcpsight setting, e.g. --set tcpsight.target.throughput.mbit=500 (see docs/configuration.md). Repeatable.")
    private Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "15000",
            description = "How long to wait for the cluster and for each handshake (100-300000, default ${DEFAULT-VALUE}).")
    private long timeoutMs;

    @Option(names = "--json", description = "Print only the findings, as the JSON array every tcpsight component serves.")
    private boolean json;

    @Option(names = "--embedded-kafka-lib", paramLabel = "DIR", hidden = true,
            description = "The embedded broker's jars (default: broker-lib next to the doctor's jar).")
    private Path embeddedKafkaLib;

    private final PrintStream out;
    private final PrintStream err;

    DoctorCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() throws Exception {
        Properties client = clientConfig();
        TcpsightConfig config = tcpsightConfig(client);
        if (probeSeconds < 1 || probeSeconds > 600) {
            throw usage("--probe-seconds: " + probeSeconds + " is not allowed; use 1 to 600");
        }
        if (timeoutMs < 100 || timeoutMs > 300_000) {
            throw usage("--timeout-ms: " + timeoutMs + " is not allowed; use 100 to 300000");
        }
        String bootstrap = bootstrapServer != null ? bootstrapServer : client.getProperty("bootstrap.servers");
        if (bootstrap != null && BootstrapServers.parse(bootstrap).isEmpty()) {
            throw usage("--bootstrap-server: '" + bootstrap + "' names no host:port");
        }
        EmbeddedBroker embedded = null;
        try {
            String note = "";
            if (bootstrap == null) {
                Path lib = embeddedKafkaLib != null ? embeddedKafkaLib : defaultKafkaLib();
                err.println("tcpsight doctor: no --bootstrap-server given; starting an embedded single-node KRaft broker (Kafka "
                        + org.apache.kafka.common.utils.AppInfoParser.getVersion() + ") on loopback ...");
                embedded = EmbeddedBroker.start(lib, Duration.ofSeconds(90));
                bootstrap = embedded.bootstrapServers();
                note = "embedded single-node KRaft broker on loopback; give --bootstrap-server to diagnose your cluster";
            }
            client.setProperty("bootstrap.servers", bootstrap);
            client.putIfAbsent("client.id", DEFAULT_CLIENT_ID);
            if (embedded != null && probeTopic != null) {
                ProbeTopic.fillIfMissing(bootstrap, probeTopic, err);
            }
            DoctorReport report = diagnose(bootstrap, note, client, config);
            if (json) {
                out.println(FindingJson.array(report.findings()));
            } else {
                HumanReport.print(report, out);
            }
            out.flush();
            return report.exitCode();
        } catch (IOException failed) {
            err.println("tcpsight doctor failed: " + failed.getMessage());
            return ExitCodes.FAILED;
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    private DoctorReport diagnose(String bootstrap, String note, Properties client, TcpsightConfig config) throws InterruptedException,
            IOException {
        HostTcpFacts host = HostTcpFacts.current();
        KernelFacts kernel = host.kernelFacts();
        String clientId = client.getProperty("client.id");
        KafkaSettings kafka = KafkaSettings.fromClientConfig(toMap(client), ClientKind.CONSUMER);
        Duration timeout = Duration.ofMillis(timeoutMs);
        List<Finding> findings = new ArrayList<>();
        List<BrokerPaths.BrokerPath> brokers = new ArrayList<>();
        Map<String, Map<String, String>> brokerConfigs = new LinkedHashMap<>();
        int partitionsPerBroker = 1;

        Properties adminConfig = new Properties();
        adminConfig.putAll(client);
        adminConfig.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        adminConfig.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        try (Admin admin = Admin.create(adminConfig)) {
            List<Node> nodes;
            try {
                nodes = new ArrayList<>(admin.describeCluster().nodes().get(timeoutMs, TimeUnit.MILLISECONDS));
            } catch (ExecutionException | TimeoutException noAnswer) {
                nodes = new ArrayList<>();
                String reason = noAnswer instanceof ExecutionException ? String.valueOf(noAnswer.getCause()) : "no answer within " + timeoutMs + " ms";
                for (InetSocketAddress server : BootstrapServers.parse(bootstrap)) {
                    BrokerPaths.BrokerPath path = BrokerPaths.probe(null, server, timeout);
                    brokers.add(path);
                    if (path.reachable()) {
                        findings.add(BrokerPaths.unreachable(path.identity(clientId), "TCP handshake completes but Kafka did not answer: "
                                + reason + " (check security.protocol and the listener this port serves)"));
                    }
                }
            }
            nodes.sort(Comparator.comparingInt(Node::id));
            Map<InetSocketAddress, String> nodeIds = new LinkedHashMap<>();
            for (Node node : nodes) {
                InetSocketAddress address = new InetSocketAddress(node.host(), node.port());
                nodeIds.put(address, node.idString());
                brokers.add(BrokerPaths.probe(node.idString(), address, timeout));
            }
            brokerConfigs.putAll(openConnectionToEachBroker(admin, nodes));
            if (probeTopic != null) {
                partitionsPerBroker = ProbeTopic.partitionsPerBroker(admin, probeTopic, timeout);
            }
            if (!nodeIds.isEmpty()) {
                // fetch-size-below-bdp then sizes for the same partitions per broker as the recommendation table
                KafkaSettings judged = probeTopic == null ? kafka : kafka.withPartitionsPerBroker(partitionsPerBroker);
                findings.addAll(ClientConnections.judge(nodeIds, clientId, judged, kernel, config));
            }
        }
        findings.addAll(BrokerPaths.findings(brokers, clientId, config));
        for (BrokerPaths.BrokerPath broker : brokers) {
            Map<String, String> brokerConfig = broker.nodeId() == null ? null : brokerConfigs.get(broker.nodeId());
            if (broker.reachable() && brokerConfig != null) {
                findings.addAll(BrokerConfigRules.socketBuffers(brokerConfig, broker.identity(clientId), broker.probe().rtt().toNanos() / 1000,
                        config));
            }
        }

        FetchSizing.Recommendation recommendation = null;
        var slowest = BrokerPaths.slowest(brokers);
        List<ThroughputProbe.Result> probe = List.of();
        if (slowest.isPresent()) {
            long rttMicros = slowest.get().probe().rtt().toNanos() / 1000;
            ConnectionIdentity path = slowest.get().identity(clientId);
            findings.addAll(Diagnosis.host(kernel, path, rttMicros, config));
            recommendation = FetchSizing.recommend(new FetchSizing.Input(rttMicros / 1e6, config.targetBytesPerSecond(), partitionsPerBroker,
                    kernel.tcpRmemMax(), null, config.get(TcpsightConfig.FETCH_RECORD_BYTES)));
            if (probeTopic != null) {
                err.println("tcpsight doctor: reading " + probeTopic + " for up to " + probeSeconds + " s per variant");
                probe = ThroughputProbe.run(client, probeTopic, ThroughputProbe.variants(recommendation.fetchMaxBytes(),
                        recommendation.maxPartitionFetchBytes()), Duration.ofSeconds(probeSeconds), err);
            }
        }
        findings.sort(Comparator.comparing((Finding finding) -> finding.severity()).reversed());
        Map<String, String> configured = new LinkedHashMap<>();
        configured.put("receive.buffer.bytes", String.valueOf(kafka.receiveBufferBytes()));
        configured.put("fetch.max.bytes", String.valueOf(kafka.fetchMaxBytes()));
        configured.put("max.partition.fetch.bytes", String.valueOf(kafka.maxPartitionFetchBytes()));
        configured.put("max.poll.records", client.getProperty("max.poll.records", Integer.toString(FetchSizing.MAX_POLL_RECORDS_DEFAULT)));
        String source = commandConfig == null ? "Kafka's consumer defaults; give yours with --command-config"
                : commandConfig + ", as a consumer; keys it does not set are Kafka's defaults";
        return new DoctorReport(bootstrap, note, host, brokers, brokerConfigs, configured, source, config.get(TcpsightConfig.TARGET_THROUGHPUT_MBIT),
                recommendation, probeTopic, probe, findings);
    }

    /**
     * The Admin client (built from the user's config, so its sockets get the user's buffers) asks
     * each broker for its config: one request per node opens one connection per node to judge,
     * and brings the broker's socket settings. Returns node id -> the settings that matter here.
     */
    private Map<String, Map<String, String>> openConnectionToEachBroker(Admin admin, List<Node> nodes) throws InterruptedException {
        Map<String, Map<String, String>> configs = new LinkedHashMap<>();
        for (Node node : nodes) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
            try {
                Config described = admin.describeConfigs(List.of(resource)).all().get(timeoutMs, TimeUnit.MILLISECONDS).get(resource);
                Map<String, String> shown = new LinkedHashMap<>();
                for (String key : BROKER_KEYS) {
                    ConfigEntry entry = described == null ? null : described.get(key);
                    if (entry != null && entry.value() != null) {
                        shown.put(key, entry.value());
                    }
                }
                configs.put(node.idString(), shown);
            } catch (ExecutionException | TimeoutException refusedOrSlow) {
                // an ACL may refuse the request; the connection it needed is open all the same
            }
        }
        return configs;
    }

    private Properties clientConfig() {
        Properties client = new Properties();
        if (commandConfig == null) {
            return client;
        }
        if (!Files.isRegularFile(commandConfig)) {
            throw usage("--command-config: " + commandConfig + " is not a readable file");
        }
        try (InputStream in = Files.newInputStream(commandConfig)) {
            client.load(in);
        } catch (IOException | IllegalArgumentException unreadable) {
            throw usage("--command-config: " + commandConfig + " cannot be read as properties: " + unreadable.getMessage());
        }
        return client;
    }

    private TcpsightConfig tcpsightConfig(Properties client) {
        Map<String, Object> values = new LinkedHashMap<>();
        client.stringPropertyNames().stream().filter(key -> key.startsWith("tcpsight.")).forEach(key -> values.put(key, client.getProperty(key)));
        for (Map.Entry<String, String> setting : settings.entrySet()) {
            if (TcpsightConfig.key(setting.getKey()) == null) {
                throw usage("--set: unknown key '" + setting.getKey() + "'; known keys: "
                        + TcpsightConfig.KEYS.stream().map(SettingKey::name).collect(Collectors.joining(", ")));
            }
            values.put(setting.getKey(), setting.getValue());
        }
        try {
            return TcpsightConfig.from(values);
        } catch (InvalidSettingException invalid) {
            throw usage(invalid.getMessage());
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    private static Map<String, Object> toMap(Properties properties) {
        Map<String, Object> map = new LinkedHashMap<>();
        properties.stringPropertyNames().forEach(key -> map.put(key, properties.getProperty(key)));
        return map;
    }

    private static Path defaultKafkaLib() throws IOException {
        try {
            Path location = Path.of(DoctorCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return location.getParent().resolve("broker-lib");
        } catch (URISyntaxException | RuntimeException unknown) {
            throw new IOException("cannot tell where the doctor's jar is (" + unknown + "); pass --embedded-kafka-lib DIR or --bootstrap-server");
        }
    }
}
