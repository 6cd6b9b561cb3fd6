package io.tcpsight.doctor;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A single-node KRaft broker on loopback, in its own JVM from the doctor's broker-lib
 * directory, with its data and log in a temporary directory that closing removes. The doctor's
 * default target when no cluster is named.
 */
final class EmbeddedBroker implements AutoCloseable {
    private final Process process;
    private final Path directory;
    private final String bootstrapServers;
    private final Thread cleanupOnExit;

    private EmbeddedBroker(Process process, Path directory, String bootstrapServers) {
        this.process = process;
        this.directory = directory;
        this.bootstrapServers = bootstrapServers;
        this.cleanupOnExit = new Thread(this::stop, "tcpsight-doctor-embedded-broker-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanupOnExit);
    }

    /** Starts the broker and waits until it answers; throws with the broker's log tail when it does not. */
    static EmbeddedBroker start(Path kafkaLib, Duration timeout) throws IOException, InterruptedException {
        if (!Files.isDirectory(kafkaLib)) {
            throw new IOException("the embedded broker's jars are not at " + kafkaLib
                    + " (build with `mvn -pl doctor -am package`, or name " + "a cluster with --bootstrap-server)");
        }
        Path directory = Files.createTempDirectory("tcpsight-doctor-kafka-");
        int[] ports = freePorts(2);
        int port = ports[0];
        int controllerPort = ports[1];
        Path config = writeConfig(directory, port, controllerPort);
        Path log4j = directory.resolve("log4j2.properties");
        Path log = directory.resolve("kafka.log");
        Files.write(
                log4j,
                List.of(
                        "rootLogger.level = WARN",
                        "rootLogger.appenderRef.file.ref = file",
                        "appender.file.type = File",
                        "appender.file.name = file",
                        "appender.file.fileName = " + log,
                        "appender.file.layout.type = PatternLayout",
                        "appender.file.layout.pattern = [%d] %p %m (%c)%n"),
                StandardCharsets.UTF_8);
        List<String> java = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms128m",
                "-Xmx512m",
                "-Dlog4j2.configurationFile=" + log4j,
                "-cp",
                kafkaLib.toAbsolutePath() + "/*"));
        List<String> format = new ArrayList<>(java);
        format.addAll(List.of(
                "kafka.tools.StorageTool", "format", "-t", Uuid.randomUuid().toString(), "-c", config.toString()));
        Process formatting = new ProcessBuilder(format)
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("format.log").toFile())
                .start();
        if (!formatting.waitFor(60, TimeUnit.SECONDS) || formatting.exitValue() != 0) {
            formatting.destroyForcibly();
            String output = Files.readString(directory.resolve("format.log"));
            delete(directory);
            throw new IOException("formatting the embedded broker's storage failed: " + output.strip());
        }
        List<String> server = new ArrayList<>(java);
        server.addAll(List.of("kafka.Kafka", config.toString()));
        Process process = new ProcessBuilder(server)
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("kafka.out").toFile())
                .start();
        EmbeddedBroker broker = new EmbeddedBroker(process, directory, "127.0.0.1:" + port);
        try {
            broker.awaitReady(timeout);
        } catch (IOException | RuntimeException failure) {
            String tail = broker.logTail();
            broker.close();
            throw new IOException(
                    "the embedded broker did not start within " + timeout.toSeconds() + " s: " + failure.getMessage()
                            + tail,
                    failure);
        }
        return broker;
    }

    private static Path writeConfig(Path directory, int port, int controllerPort) throws IOException {
        Properties properties = new Properties();
        properties.setProperty("process.roles", "broker,controller");
        properties.setProperty("node.id", "1");
        properties.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        properties.setProperty(
                "listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        properties.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        properties.setProperty("controller.listener.names", "CONTROLLER");
        properties.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        properties.setProperty("log.dirs", directory.resolve("data").toString());
        properties.setProperty("offsets.topic.replication.factor", "1");
        properties.setProperty("transaction.state.log.replication.factor", "1");
        properties.setProperty("transaction.state.log.min.isr", "1");
        properties.setProperty("share.coordinator.state.topic.replication.factor", "1");
        properties.setProperty("share.coordinator.state.topic.min.isr", "1");
        properties.setProperty("group.initial.rebalance.delay.ms", "0");
        Path config = directory.resolve("server.properties");
        try (var out = Files.newBufferedWriter(config)) {
            properties.store(out, "tcpsight doctor: embedded single-node KRaft broker");
        }
        return config;
    }

    private void awaitReady(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Properties admin = new Properties();
        admin.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        admin.setProperty(AdminClientConfig.CLIENT_ID_CONFIG, "tcpsight-doctor-readiness");
        admin.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        admin.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "2000");
        try (Admin client = Admin.create(admin)) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IOException("the broker JVM exited with " + process.exitValue());
                }
                try {
                    if (!client.describeCluster()
                            .nodes()
                            .get(2, TimeUnit.SECONDS)
                            .isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException notYet) {
                    // still starting
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("no answer on " + bootstrapServers);
                }
                Thread.sleep(200);
            }
        }
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    private String logTail() {
        StringBuilder tail = new StringBuilder();
        for (String name : List.of("kafka.out", "kafka.log")) {
            try {
                List<String> lines = Files.readAllLines(directory.resolve(name), StandardCharsets.UTF_8);
                if (!lines.isEmpty()) {
                    tail.append("\n--- ")
                            .append(name)
                            .append(" (last lines)\n")
                            .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())));
                }
            } catch (IOException unreadable) {
                // nothing to add
            }
        }
        return tail.toString();
    }

    private synchronized void stop() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException interrupted) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        delete(directory);
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanupOnExit);
        } catch (IllegalStateException exiting) {
            // the hook runs anyway
        }
    }

    /**
     * Ports free now and different from each other: all are held open while the next is taken. One
     * after another, the kernel may offer a just-closed port again, and once the client and the
     * controller listener got the same one (Kafka refused the config).
     */
    static int[] freePorts(int count) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
    }

    private static void delete(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException ignored) {
            // a leftover temporary directory is harmless
        }
    }
}
