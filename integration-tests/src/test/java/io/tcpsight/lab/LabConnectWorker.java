package io.tcpsight.lab;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real distributed Connect worker JVM (Kafka 4.3.1 jars, the tcpsight plugin directory on
 * plugin.path) in a kernel lab's client namespace: its clients reach the broker only across the
 * delay line; the test talks to its REST API over the undelayed client control link.
 */
public final class LabConnectWorker extends ConnectRest implements AutoCloseable {
    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final int REST_PORT = 8083;
    private static final int AGENT_PORT = 9464;
    /** Plus the worker's number: several workers share the client namespace. */
    private static final int JMX_PORT_BASE = 9500;

    private final LabProcess process;
    private final Path directory;
    private final ConnectRest agent;
    private final WorkerJmx jmx;

    private LabConnectWorker(LabProcess process, String restUrl, Path directory, ConnectRest agent, WorkerJmx jmx) {
        super(restUrl);
        this.process = process;
        this.directory = directory;
        this.agent = agent;
        this.jmx = jmx;
    }

    /** Starts a worker against this broker with these extra worker settings, and waits for its REST API. */
    public static LabConnectWorker start(KernelLab lab, KafkaBroker broker, Map<String, String> workerConfig)
            throws IOException, InterruptedException {
        return start(lab, broker, workerConfig, null);
    }

    /**
     * The same, with the tcpsight agent in the worker JVM given these arguments (null: no agent);
     * its HTTP endpoint is reachable from the test over the control link unless the arguments say
     * otherwise.
     */
    public static LabConnectWorker start(
            KernelLab lab, KafkaBroker broker, Map<String, String> workerConfig, String agentArguments)
            throws IOException, InterruptedException {
        return start(lab, broker, workerConfig, agentArguments, KafkaBroker.Version.V4_3);
    }

    /** The same, on the Connect runtime of this Kafka release (3.x: the javax.ws.rs REST server). */
    public static LabConnectWorker start(
            KernelLab lab,
            KafkaBroker broker,
            Map<String, String> workerConfig,
            String agentArguments,
            KafkaBroker.Version version)
            throws IOException, InterruptedException {
        return start(lab, broker, workerConfig, agentArguments, version, LabJvm.ofThisJvm());
    }

    /**
     * The same, on this JVM's runtime and options (the worker's KAFKA_OPTS: Java 24 and later take
     * --enable-native-access=ALL-UNNAMED for the plugin); the class path is always Kafka's.
     */
    public static LabConnectWorker start(
            KernelLab lab,
            KafkaBroker broker,
            Map<String, String> workerConfig,
            String agentArguments,
            KafkaBroker.Version version,
            LabJvm jvm)
            throws IOException, InterruptedException {
        return launch(lab, broker, workerConfig, agentArguments, version, jvm, false);
    }

    /**
     * The same on Kafka 4.3.1's Connect, in a {@link LabJvm#SHORT_LIVED} JVM: for a test whose
     * claims are names, findings and restarts, no rate.
     */
    public static LabConnectWorker startShortLived(
            KernelLab lab, KafkaBroker broker, Map<String, String> workerConfig, String agentArguments)
            throws IOException, InterruptedException {
        return start(
                lab,
                broker,
                workerConfig,
                agentArguments,
                KafkaBroker.Version.V4_3,
                LabJvm.ofThisJvm().shortLived());
    }

    /**
     * The same as {@link #start(KernelLab, KafkaBroker, Map)}, with the worker's JMX open on the
     * client control link ({@link #jmx()}). Only where a test reads it: JMX is one more listening
     * socket in the worker, which an agent in it would watch.
     */
    public static LabConnectWorker startWithJmx(KernelLab lab, KafkaBroker broker, Map<String, String> workerConfig)
            throws IOException, InterruptedException {
        return launch(lab, broker, workerConfig, null, KafkaBroker.Version.V4_3, LabJvm.ofThisJvm(), true);
    }

    private static LabConnectWorker launch(
            KernelLab lab,
            KafkaBroker broker,
            Map<String, String> workerConfig,
            String agentArguments,
            KafkaBroker.Version version,
            LabJvm jvm,
            boolean openJmx)
            throws IOException, InterruptedException {
        if (!version.hasConnect()) {
            throw new IllegalArgumentException("the lab has no Connect runtime of Kafka " + version.release());
        }
        LabPrerequisites.requireKafkaRuntime(version.lib());
        LabPrerequisites.requireConnectPlugin();
        int n = NEXT.incrementAndGet();
        Path directory = Files.createDirectories(LabPaths.work().resolve(lab.serverNamespace() + "-connect-" + n));
        Map<String, String> config = distributedWorker(broker, Integer.toString(n));
        // Several workers of one cluster share the client namespace: each names its own port in listeners.
        String listeners = workerConfig.getOrDefault("listeners", "http://0.0.0.0:" + REST_PORT);
        int restPort = URI.create(listeners.split(",")[0].trim()).getPort();
        config.put("listeners", listeners);
        config.put("rest.advertised.host.name", lab.clientControlAddress());
        config.put("offset.flush.interval.ms", "1000");
        if (jvm.options().containsAll(LabJvm.SHORT_LIVED)) {
            // a worker whose test claims no rate keeps its offsets and status in one partition each, not
            // Connect's 25 and 5, as its short-lived broker keeps consumer offsets (KafkaBroker.Builder#shortLivedJvm)
            config.put("offset.storage.partitions", "1");
            config.put("status.storage.partitions", "1");
        }
        config.putAll(workerConfig);
        Properties properties = new Properties();
        properties.putAll(config);
        Path file = directory.resolve("worker.properties");
        try (var out = Files.newBufferedWriter(file)) {
            properties.store(out, "tcpsight lab Connect worker");
        }
        List<String> command = kafkaJvm(directory);
        command.set(0, jvm.java().toString());
        command.addAll(jvm.options());
        command.addAll(SharedClasses.options(SharedClasses.Kind.CONNECT_WORKER, version, jvm.javaHome()));
        int jmxPort = JMX_PORT_BASE + n;
        if (openJmx) {
            command.addAll(WorkerJmx.options(lab.clientControlAddress(), jmxPort));
        }
        ConnectRest agent = null;
        if (agentArguments != null) {
            agent = agentEndpoint(lab, agentArguments);
            command.add("-javaagent:" + LabPaths.agentJar() + "=" + agentOnControlLink(lab, agentArguments));
        }
        command.addAll(Arrays.asList(
                "-cp", version.lib() + "/*", "org.apache.kafka.connect.cli.ConnectDistributed", file.toString()));
        LabProcess process = lab.execInClient("connect-" + n, command);
        LabConnectWorker worker = new LabConnectWorker(
                process,
                "http://" + lab.clientControlAddress() + ":" + restPort,
                directory,
                agent,
                openJmx ? new WorkerJmx(lab.clientControlAddress(), jmxPort) : null);
        try {
            worker.awaitRest(Duration.ofSeconds(120));
        } catch (AssertionError | RuntimeException failure) {
            worker.close();
            throw failure;
        }
        return worker;
    }

    /**
     * What every lab worker is given: its group and storage topics named by {@code name}, string
     * converters, the lab's plugin directory found by its ServiceLoader manifests.
     */
    private static Map<String, String> distributedWorker(KafkaBroker broker, String name) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("bootstrap.servers", broker.bootstrapServers());
        config.put("group.id", "tcpsight-lab-connect-" + name);
        config.put("config.storage.topic", "connect-configs-" + name);
        config.put("offset.storage.topic", "connect-offsets-" + name);
        config.put("status.storage.topic", "connect-status-" + name);
        config.put("config.storage.replication.factor", "1");
        config.put("offset.storage.replication.factor", "1");
        config.put("status.storage.replication.factor", "1");
        config.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        config.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        config.put("plugin.path", LabPaths.connectPlugins().toString());
        config.put("plugin.discovery", "service_load");
        return config;
    }

    /**
     * A worker on loopback against this loopback broker, on Kafka 4.3.1 with the lab's plugin path,
     * with these JVM options, once its REST API answers: the start whose classes {@link SharedClasses}
     * archives for the lab's workers.
     */
    static LabProcess startForArchive(KafkaBroker broker, List<String> jvmOptions)
            throws IOException, InterruptedException {
        Path directory =
                Files.createDirectories(LabPaths.work().resolve("class-data").resolve("connect"));
        int restPort = KafkaBroker.freePort();
        Properties properties = new Properties();
        properties.putAll(distributedWorker(broker, "class-data"));
        properties.put("listeners", "http://127.0.0.1:" + restPort);
        Path file = directory.resolve("worker.properties");
        try (var out = Files.newBufferedWriter(file)) {
            properties.store(out, "tcpsight lab Connect worker whose classes are archived");
        }
        List<String> command = kafkaJvm(directory);
        command.addAll(jvmOptions);
        command.addAll(Arrays.asList(
                "-cp",
                KafkaBroker.Version.V4_3.lib() + "/*",
                "org.apache.kafka.connect.cli.ConnectDistributed",
                file.toString()));
        LabProcess process = LabProcess.start("class-data-connect", command);
        ConnectRest rest = new ConnectRest("http://127.0.0.1:" + restPort);
        try {
            LabAwait.await("the archived Connect worker's REST API")
                    .atMost(Duration.ofSeconds(120))
                    .every(Duration.ofMillis(250))
                    .unless(() -> !process.process().isAlive())
                    .explainedBy(() -> "output:\n" + process.output())
                    .untilTrue(() -> rest.status("/connectors") == 200);
        } catch (AssertionError | RuntimeException failure) {
            process.kill(); // its archive is not used: nothing of it is left running
            throw failure;
        }
        return process;
    }

    /**
     * The java command of a Kafka JVM whose logs go to this directory, with every client's config
     * as built logged, so a test can read what a task's consumer was given.
     */
    static List<String> kafkaJvm(Path directory) throws IOException {
        Path log4j = KafkaBroker.writeLog4j2(directory);
        Files.write(
                log4j,
                List.of(
                        "logger.clientconfig.name = org.apache.kafka.common.config.AbstractConfig",
                        "logger.clientconfig.level = INFO"),
                StandardOpenOption.APPEND);
        Path log4j1 = KafkaBroker.writeLog4j1(directory); // Kafka 3.x logs through reload4j
        Files.write(
                log4j1,
                List.of(
                        // 3.x logs a client's config under the config class's own logger
                        "log4j.logger.org.apache.kafka.clients.consumer.ConsumerConfig=INFO",
                        "log4j.logger.org.apache.kafka.clients.producer.ProducerConfig=INFO"),
                StandardOpenOption.APPEND);
        return new ArrayList<>(Arrays.asList(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms256m",
                "-Xmx1g",
                "-Dlog4j2.configurationFile=" + log4j,
                "-Dlog4j.configuration=file:" + log4j1));
    }

    /**
     * The agent's HTTP endpoint where {@link #agentOnControlLink(KernelLab, String)} puts it, or
     * null where the arguments name their own port (the test then knows where it is).
     */
    static ConnectRest agentEndpoint(KernelLab lab, String agentArguments) {
        return agentArguments.contains("port=")
                ? null
                : new ConnectRest("http://" + lab.clientControlAddress() + ":" + AGENT_PORT);
    }

    /** The agent's arguments with its HTTP endpoint on the client control link, unless they name a port. */
    static String agentOnControlLink(KernelLab lab, String agentArguments) {
        if (agentArguments.contains("port=")) {
            return agentArguments;
        }
        return agentArguments + (agentArguments.isEmpty() ? "" : ",") + "port=" + AGENT_PORT + ",host="
                + lab.clientControlAddress();
    }

    private void awaitRest(Duration timeout) {
        LabAwait.await("the Connect worker's REST API")
                .atMost(timeout)
                .every(Duration.ofMillis(250))
                .unless(() -> !process.process().isAlive())
                .explainedBy(() -> "output:\n" + process.output())
                // a worker behind basic auth answers 401 until the caller gives credentials: up too
                .untilTrue(() -> {
                    int status = status("/connectors");
                    return status == 200 || status == 401;
                });
    }

    /** The agent's HTTP endpoint in this worker (GET /metrics, /findings), when started with the agent on its default port. */
    public ConnectRest agent() {
        if (agent == null) {
            throw new IllegalStateException("this worker runs without the agent's HTTP endpoint");
        }
        return agent;
    }

    /** Where a FileStreamSink of this worker may write (the worker runs as this user on this host). */
    public Path directory() {
        return directory;
    }

    public LabProcess process() {
        return process;
    }

    /** The worker's JMX over the client control link: what its clients' own metrics say. */
    public WorkerJmx jmx() {
        if (jmx == null) {
            throw new IllegalStateException("this worker was started without JMX (startWithJmx)");
        }
        return jmx;
    }

    /**
     * Ends the worker at once (SIGKILL): no test claims anything of a worker's stop, and a graceful
     * one waited for each task's stop (up to 12 s a worker). A worker's group is its own unless the
     * test names one (workers of one Connect cluster, which end together with their lab), so no
     * later worker waits for a killed member to time out.
     */
    @Override
    public void close() {
        process.kill();
    }
}
