package io.tcpsight.doctor;

import io.tcpsight.internal.config.InvalidSettingException;
import io.tcpsight.internal.config.SettingKey;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.connection.ExpectedRate;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.FindingJson;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.model.BootstrapServers;
import io.tcpsight.internal.model.ClientLibrary;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.ProducerPipeline;
import io.tcpsight.internal.tuning.BdpSettings;
import io.tcpsight.internal.tuning.ProducerSizing;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.common.utils.AppInfoParser;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
        name = "doctor",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Diagnoses the TCP path from this host to a Kafka cluster: this host's TCP sysctls and kernel, each broker's RTT "
                    + "and handshake time, and a client config judged on real connections, with the recommended receive.buffer.bytes, "
                    + "fetch.max.bytes and max.partition.fetch.bytes.",
            "Without --bootstrap-server (and no bootstrap.servers in --command-config) it starts an embedded single-node KRaft broker "
                    + "on loopback and diagnoses that.",
            "Exit codes: 0 healthy (info findings at most), 1 warn or critical findings, 2 usage error, 3 the doctor failed."
        })
final class DoctorCommand implements Callable<Integer> {
    static final String DEFAULT_CLIENT_ID = "tcpsight-doctor";
    /** The broker settings the report shows and judges. */
    @Spec
    private CommandSpec spec;

    @Option(
            names = "--bootstrap-server",
            paramLabel = "HOST:PORT[,HOST:PORT...]",
            description =
                    "The cluster to diagnose. Default: bootstrap.servers from --command-config, else an embedded broker.")
    private String bootstrapServer;

    @Option(
            names = "--command-config",
            paramLabel = "FILE",
            description =
                    "A Kafka client config (properties) to judge, as a producer or a consumer (--client); tcpsight.* keys in"
                            + " it set the rules' thresholds.")
    private Path commandConfig;

    @Option(
            names = "--client",
            paramLabel = "producer|consumer",
            description = "Judge --command-config as a producer's or a consumer's. Default: from the keys only one of"
                    + " them has (batch.size, acks, ... or group.id, fetch.max.bytes, ...), else a consumer; the"
                    + " report says which.")
    private String clientRole;

    @Option(
            names = "--probe-topic",
            paramLabel = "TOPIC",
            description =
                    "Also measure consume throughput of this topic with receive.buffer.bytes=65536, -1 and tcpsight's recommendation, "
                            + "side by side, then produce throughput to it as configured and as recommended. Read-only on a named "
                            + "cluster unless --probe-write is given; on the embedded broker the topic is created, filled and written.")
    private String probeTopic;

    @Option(
            names = "--probe-write",
            description =
                    "With --probe-topic on a named cluster: also write 1000-byte probe records to that topic for --probe-seconds "
                            + "per variant, to measure produce throughput. The records stay in the topic.")
    private boolean probeWrite;

    @Option(
            names = "--probe-seconds",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description = "How long each probe variant reads (1-600, default ${DEFAULT-VALUE}).")
    private int probeSeconds;

    @Option(
            names = "--set",
            paramLabel = "tcpsight.KEY=VALUE",
            mapFallbackValue = "",
            description =
                    "A tcpsight setting, e.g. --set tcpsight.target.throughput.mbit=500 (see docs/configuration.md). Repeatable.")
    private Map<String, String> settings = new LinkedHashMap<>();

    @Option(
            names = "--timeout-ms",
            paramLabel = "MS",
            defaultValue = "15000",
            description =
                    "How long to wait for the cluster and for each handshake (100-300000, default ${DEFAULT-VALUE}).")
    private long timeoutMs;

    @Option(
            names = "--client-library",
            paramLabel = "LIBRARY",
            defaultValue = "java",
            description =
                    "The library your client runs, so that remedies come in its own keys: java (default), librdkafka, "
                            + "kafka-python, franz-go, sarama, kafkajs or kafka-go. With librdkafka, kafka-python or franz-go,"
                            + " --command-config is that library's own file (docs/doctor.md), read into the keys the doctor"
                            + " measures with; with the others, Java keys.")
    private String clientLibrary;

    private ClientLibrary library = ClientLibrary.JAVA;
    /** How the report describes --command-config when it was read in a library's own keys. */
    private String configSource;

    @Option(
            names = "--json",
            description = "Print only the findings, as the JSON array every tcpsight component serves.")
    private boolean json;

    @Option(
            names = "--embedded-kafka-lib",
            paramLabel = "DIR",
            hidden = true,
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
        library = DoctorClient.library(clientLibrary);
        if (library == ClientLibrary.UNKNOWN) {
            throw usage("--client-library: '" + clientLibrary + "' is not allowed; use one of "
                    + DoctorClient.libraryNames());
        }
        // a library's own file is read in its own keys, and judged with its own defaults where it sets none
        LibraryConfigFile.Read ownFile = null;
        if (commandConfig != null && LibraryConfigFile.readsOwnFile(library)) {
            try {
                ownFile = LibraryConfigFile.read(library, client);
            } catch (IllegalArgumentException refused) {
                throw usage("--command-config: " + refused.getMessage());
            }
            client = ownFile.javaKeys();
        }
        TcpsightConfig config = tcpsightConfig(client);
        ClientRole.Decided role;
        try {
            role = ClientRole.decide(
                    clientRole, client, commandConfig == null ? "no config" : commandConfig.toString());
        } catch (IllegalArgumentException refused) {
            throw usage(refused.getMessage());
        }
        if (ownFile != null) {
            client = LibraryConfigFile.withDefaults(library, role.role(), client);
            configSource = commandConfig + ", read as " + library.label() + "'s own keys; keys it does not set are "
                    + library.label() + "'s defaults"
                    + (ownFile.notRead().isEmpty()
                            ? ""
                            : "; keys the doctor does not read, so not judged or measured: "
                                    + String.join(", ", ownFile.notRead()))
                    + (ownFile.unnamed() == 0 ? "" : "; " + ownFile.unnamed() + " line(s) that are no key, not shown");
        }
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
                err.println(
                        "tcpsight doctor: no --bootstrap-server given; starting an embedded single-node KRaft broker (Kafka "
                                + AppInfoParser.getVersion() + ") on loopback ...");
                embedded = EmbeddedBroker.start(lib, Duration.ofSeconds(90));
                bootstrap = embedded.bootstrapServers();
                note =
                        "embedded single-node KRaft broker on loopback; give --bootstrap-server to diagnose your cluster";
            }
            client.setProperty("bootstrap.servers", bootstrap);
            client.putIfAbsent("client.id", DEFAULT_CLIENT_ID);
            if (embedded != null && probeTopic != null) {
                ProbeTopic.fillIfMissing(bootstrap, probeTopic, err);
            }
            DoctorReport report = diagnose(bootstrap, note, client, role, config, embedded != null || probeWrite);
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

    /** Gather, judge, recommend, then the report: each step its own method or class. */
    private DoctorReport diagnose(
            String bootstrap,
            String note,
            Properties client,
            ClientRole.Decided role,
            TcpsightConfig config,
            boolean writeAllowed)
            throws InterruptedException, IOException {
        HostTcpFacts host = HostTcpFacts.current();
        KernelFacts kernel = host.kernelFacts();
        KafkaSettings kafka =
                KafkaSettings.fromClientConfig(toMap(client), role.role().kind());
        ProducerPipeline pipeline = ProducerPipeline.defaults();
        if (role.role() == ClientRole.PRODUCER) {
            try {
                pipeline = ProducerPipeline.fromClientConfig(toMap(client));
            } catch (IllegalArgumentException refused) {
                throw usage("--command-config: " + refused.getMessage());
            }
        }
        DoctorClient named = DoctorClient.of(client.getProperty("client.id"), library, role.role());
        ClusterSurvey survey = ClusterSurvey.take(
                client, named, bootstrap, probeTopic, kafka, kernel, config, Duration.ofMillis(timeoutMs));
        Optional<BrokerPaths.BrokerPath> slowest = BrokerPaths.slowest(survey.brokers);
        KafkaSettings judged = kafka.withPartitionsPerBroker(survey.partitionsPerBroker);
        List<Finding> findings = role.role() == ClientRole.PRODUCER
                ? DoctorJudgement.producer(survey, slowest, named, kernel, pipeline, config)
                : DoctorJudgement.consumer(survey, slowest, named, kernel, judged, config);
        Optional<ExpectedRate> clientPath = slowest.map(path ->
                ClientPaths.limits(findings, path.identity(named), path.rttMicros(), role.role(), judged, config));
        BdpSettings.Recommendation recommendation = slowest.map(path -> DoctorJudgement.recommend(
                        path, survey.partitionsPerBroker, survey.brokers.size(), kernel, config))
                .orElse(null);
        boolean probing = recommendation != null && probeTopic != null;
        boolean producer = role.role() == ClientRole.PRODUCER;
        // a producer's config is measured by what it writes: reading the topic would measure a consumer's settings
        List<ThroughputProbe.Result> probe = probing && !producer ? probe(client, recommendation) : List.of();
        WriteProbe.Measured writes = probing && writeAllowed
                ? write(
                        client,
                        recommendation,
                        producer ? variant -> ownConnectionJudge(client, variant, survey, kernel, config) : null)
                : WriteProbe.Measured.NOTHING;
        return DoctorReport.builder(bootstrap)
                .targetNote(note)
                .host(host)
                .brokers(survey.brokers, survey.brokerConfigs)
                .client(
                        role.role() == ClientRole.PRODUCER ? configuredProducer(client) : configured(kafka, client),
                        (commandConfig == null
                                        ? "Kafka's client defaults; give yours with --command-config"
                                        : configSource != null
                                                ? configSource
                                                : commandConfig + "; keys it does not set are Kafka's defaults")
                                + "; judged " + role.why())
                .sizing(config.get(TcpsightConfig.TARGET_THROUGHPUT_MBIT), recommendation)
                .clientPath(role.role().label(), clientPath.orElse(null))
                .probe(
                        probeTopic,
                        probe,
                        probing && producer ? "not measured: a producer's config is measured by what it writes" : "")
                .writeProbe(
                        writes,
                        probing && !writeAllowed
                                ? "not measured: on a named cluster the probe writes only with --probe-write"
                                : "")
                .findings(findings)
                .build();
    }

    private List<ThroughputProbe.Result> probe(Properties client, BdpSettings.Recommendation recommendation) {
        err.println("tcpsight doctor: reading " + probeTopic + " for up to " + probeSeconds + " s per variant");
        return ThroughputProbe.run(
                client,
                probeTopic,
                ThroughputProbe.variants(recommendation.fetchMaxBytes(), recommendation.maxPartitionFetchBytes()),
                Duration.ofSeconds(probeSeconds),
                err);
    }

    private WriteProbe.Measured write(
            Properties client,
            BdpSettings.Recommendation recommendation,
            Function<ThroughputProbe.Variant, ProducerConnectionJudge> ownConnection) {
        err.println("tcpsight doctor: writing to " + probeTopic + " for " + probeSeconds + " s per variant");
        return WriteProbe.run(
                client,
                probeTopic,
                WriteProbe.variants(recommendation.producer(), client),
                Duration.ofSeconds(probeSeconds),
                err,
                ownConnection);
    }

    /**
     * A write variant's producer judged on its own connection as the agent judges a producer, with
     * the settings it ran with: named by the probe's client.id, which is what runs, and answered in
     * the user's library's keys.
     */
    private ProducerConnectionJudge ownConnectionJudge(
            Properties client,
            ThroughputProbe.Variant variant,
            ClusterSurvey survey,
            KernelFacts kernel,
            TcpsightConfig config) {
        return new ProducerConnectionJudge(
                survey.nodeIds,
                DoctorClient.of(WriteProbe.CLIENT_ID, library, ClientRole.PRODUCER),
                KafkaSettings.fromClientConfig(
                        toMap(WriteProbe.producerConfig(client, variant)), ClientRole.PRODUCER.kind()),
                kernel,
                config);
    }

    /** The client settings the report shows as judged. */
    private static Map<String, String> configured(KafkaSettings kafka, Properties client) {
        Map<String, String> configured = new LinkedHashMap<>();
        configured.put(
                "receive.buffer.bytes",
                Integer.toString(kafka.receiveBufferBytes().getAsInt()));
        configured.put("fetch.max.bytes", Long.toString(kafka.fetchMaxBytes().getAsLong()));
        configured.put(
                "max.partition.fetch.bytes",
                Long.toString(kafka.maxPartitionFetchBytes().getAsLong()));
        configured.put(
                "max.poll.records",
                client.getProperty("max.poll.records", Integer.toString(BdpSettings.MAX_POLL_RECORDS_DEFAULT)));
        for (String producerKey : ProducerSizing.KEYS) {
            configured.put(producerKey, client.getProperty(producerKey));
        }
        return configured;
    }

    /** A producer's settings the report shows as judged: its pipeline's keys and its send buffer. */
    private static Map<String, String> configuredProducer(Properties client) {
        Map<String, String> configured = new LinkedHashMap<>();
        configured.put(
                "max.in.flight.requests.per.connection", client.getProperty("max.in.flight.requests.per.connection"));
        for (String producerKey : ProducerSizing.KEYS) {
            configured.put(producerKey, client.getProperty(producerKey));
        }
        return configured;
    }

    private Properties clientConfig() {
        try {
            return CommandConfigFile.read(commandConfig);
        } catch (IllegalArgumentException unreadable) {
            throw usage(unreadable.getMessage());
        }
    }

    private TcpsightConfig tcpsightConfig(Properties client) {
        Map<String, Object> values = new LinkedHashMap<>();
        client.stringPropertyNames().stream()
                .filter(key -> key.startsWith("tcpsight."))
                .forEach(key -> values.put(key, client.getProperty(key)));
        for (Map.Entry<String, String> setting : settings.entrySet()) {
            if (TcpsightConfig.key(setting.getKey()).isEmpty()) {
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
            Path location = Path.of(DoctorCommand.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            return location.getParent().resolve("broker-lib");
        } catch (URISyntaxException | RuntimeException unknown) {
            throw new IOException("cannot tell where the doctor's jar is (" + unknown
                    + "); pass --embedded-kafka-lib DIR or --bootstrap-server");
        }
    }
}
