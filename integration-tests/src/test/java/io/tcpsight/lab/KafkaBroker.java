package io.tcpsight.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node KRaft broker JVM from the Maven-resolved Kafka jars, started in the lab's
 * server namespace: clients reach it only across the delay line.
 */
public final class KafkaBroker {
    public static final int PORT = 9092;
    private static final int CONTROLLER_PORT = 9093;

    private final KernelLab lab;
    private final LabProcess process;

    private KafkaBroker(KernelLab lab, LabProcess process) {
        this.lab = lab;
        this.process = process;
    }

    /** Starts a broker in the lab's server namespace and waits until a client across the link sees it. */
    public static KafkaBroker start(KernelLab lab, Map<String, String> overrides) throws IOException, InterruptedException {
        LabPrerequisites.requireKafkaRuntime();
        Path directory = Files.createDirectories(LabPaths.work().resolve(lab.serverNamespace() + "-kafka"));
        Path config = directory.resolve("server.properties");
        Properties properties = new Properties();
        properties.setProperty("process.roles", "broker,controller");
        properties.setProperty("node.id", "1");
        properties.setProperty("controller.quorum.voters", "1@127.0.0.1:" + CONTROLLER_PORT);
        properties.setProperty("listeners", "PLAINTEXT://" + lab.serverAddress() + ":" + PORT + ",CONTROLLER://127.0.0.1:" + CONTROLLER_PORT);
        properties.setProperty("advertised.listeners", "PLAINTEXT://" + lab.serverAddress() + ":" + PORT);
        properties.setProperty("controller.listener.names", "CONTROLLER");
        properties.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        properties.setProperty("log.dirs", directory.resolve("data").toString());
        properties.setProperty("offsets.topic.replication.factor", "1");
        properties.setProperty("transaction.state.log.replication.factor", "1");
        properties.setProperty("transaction.state.log.min.isr", "1");
        properties.setProperty("share.coordinator.state.topic.replication.factor", "1");
        properties.setProperty("share.coordinator.state.topic.min.isr", "1");
        properties.setProperty("group.initial.rebalance.delay.ms", "0");
        properties.putAll(overrides);
        try (var out = Files.newBufferedWriter(config)) {
            properties.store(out, "tcpsight lab broker");
        }
        Path log4j = directory.resolve("log4j2.properties");
        Files.write(log4j, List.of("rootLogger.level = WARN", "rootLogger.appenderRef.console.ref = console",
                "appender.console.type = Console", "appender.console.name = console",
                "appender.console.layout.type = PatternLayout", "appender.console.layout.pattern = [%d] %p %m (%c)%n"),
                StandardCharsets.UTF_8);

        List<String> java = new ArrayList<>(Arrays.asList(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms256m", "-Xmx1g", "-Dlog4j2.configurationFile=" + log4j, "-cp", LabPaths.kafkaLib() + "/*"));
        List<String> format = new ArrayList<>(java);
        format.addAll(Arrays.asList("kafka.tools.StorageTool", "format", "-t", Uuid.randomUuid().toString(), "-c", config.toString()));
        try (LabProcess formatting = LabProcess.start(lab.serverNamespace() + "-kafka-format", format)) {
            if (formatting.awaitExit(Duration.ofSeconds(60)) != 0) {
                throw new IOException("formatting Kafka storage failed:\n" + formatting.output());
            }
        }
        List<String> broker = new ArrayList<>(java);
        broker.addAll(Arrays.asList("kafka.Kafka", config.toString()));
        KafkaBroker started = new KafkaBroker(lab, lab.execInServer("kafka", broker));
        started.awaitReady(Duration.ofSeconds(90));
        return started;
    }

    public String bootstrapServers() {
        return lab.serverAddress() + ":" + PORT;
    }

    public LabProcess process() {
        return process;
    }

    private void awaitReady(Duration timeout) throws InterruptedException {
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        try (Admin admin = Admin.create(config)) {
            while (System.nanoTime() < deadline) {
                if (!process.process().isAlive()) {
                    break;
                }
                try {
                    if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (Exception notYet) {
                    last = notYet;
                }
                Thread.sleep(200);
            }
        }
        throw new AssertionError("Kafka broker in " + lab.serverNamespace() + " not ready within " + timeout + " (" + last + "). Output:\n"
                + process.output());
    }
}
