package io.tcpsight.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.AtOnce;
import io.tcpsight.lab.ConnectionView;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.JvmWarnings;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KafkaBroker.Version;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabConnectWorker;
import io.tcpsight.lab.LabJvm;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The support matrix's smoke test, one run per Kafka release the lab resolves (3.6 to 4.4). A
 * broker of that release with the agent, 50 ms and 200 Mbit/s from a Connect worker of the same
 * release (4.3.1 for 4.4.0, which has no Connect that resolves) that carries the plugin and the
 * agent too. One sink task consumer with Kafka's default 64 KiB buffer reads a pre-filled topic
 * through a {@code ${tcpsight:...}} fetch size, and each piece must start, attribute and judge it:
 * the broker agent names it with the release's client software, and the plugin and the agent in
 * the worker each raise {@code small-receive-buffer} for it. The plugin serves /tcpsight/*, its
 * placeholder resolves to a fetch size of its own, and every record reaches the sink once. Kafka
 * 4.3.1's broker and worker run on Temurin 25 with {@code --enable-native-access=ALL-UNNAMED}, as
 * the docs say, and neither prints a JEP 472 warning; Kafka 3.9.2's run on Java 11, the oldest Java
 * the agent and the plugin support.
 */
// The class runs in the lab lane, last of its shared part (LaneOrder), where the other lane should have ended; its
// releases run three at once on threads of its own, each in its own lab. CONCURRENT on the class would run it
// beside other lab classes.
@Execution(ExecutionMode.SAME_THREAD)
class VersionMatrixLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final String TOPIC = "matrix";
    private static final String CONNECTOR = "matrix-sink";
    private static final String TASK_CONSUMER = "connector-consumer-matrix-sink-0";
    private static final int RECORDS = 1_000;
    /** Kafka's newest release with a Connect runtime in the lab; it runs on Java 25. */
    private static final Version JAVA_25_RELEASE = Version.V4_3;
    /**
     * Kafka's last 3.x release runs on Java 11, the oldest Java the agent and the plugin are built
     * for (docs/before-you-install.md): Kafka 4.x brokers and workers need Java 17.
     */
    private static final Version JAVA_11_RELEASE = Version.V3_9;
    /** What docs/broker-agent.md and docs/connect-plugin.md give for Java 24 and later. */
    private static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    /**
     * Releases at once. A release's run waits on round trips across its line far more than on the
     * CPU: two at once kept the host's two CPUs 67 % busy (a 5 s sampler beside a fresh clone of
     * {@code 17cf670}, 2026-11-29), and each run is a broker and a worker with C1 alone.
     */
    private static final int AT_ONCE = 3;

    /** Longer than a release's own bounds (the worker's start 120 s, each finding 45 s, the records 90 s) add up to. */
    private static final Duration RELEASE_BOUND = Duration.ofMinutes(6);

    /**
     * Every release, {@link #AT_ONCE} at a time on threads of this class's own; a test per release
     * reports its run's outcome. JUnit's pool has two threads, shared with the other lane.
     */
    @TestFactory
    Stream<DynamicTest> theAgentAndThePluginStartAttributeAndJudgeOnEachRelease() {
        Map<String, AtOnce.Run> runs = new LinkedHashMap<>();
        for (Version release : Version.values()) {
            runs.put("Kafka " + release, () -> startAttributeAndJudge(release));
        }
        return AtOnce.tests("version-matrix", AT_ONCE, RELEASE_BOUND, LAB, runs);
    }

    private static void startAttributeAndJudge(Version release) throws Exception {
        // 50 ms: the window a 64 KiB buffer allows (at most 131,070 bytes in the lab's worker logs) then moves at
        // most 21 Mbit/s, under a quarter of the plugin's default 100 Mbit/s target, so the finding is critical as at
        // 100 ms; the worker's start, mostly round trips across the line, takes half as long.
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(50)).rateMbit(200))
                .clientInNamespace());
        // The newest release the lab's Connect runs on goes on Temurin 25 with the documented option, the
        // broker and the worker alike; the last 3.x on Java 11 (which refuses that option); the others on the
        // lab's Java 17.
        boolean onJava25 = release == JAVA_25_RELEASE;
        boolean onJava11 = release == JAVA_11_RELEASE;
        // A smoke test of starts, names and findings: its Kafka JVMs compile with C1 alone (LabJvm.SHORT_LIVED).
        LabJvm jvm = LabJvm.ofThisJvm().shortLived();
        if (onJava25) {
            jvm = jvm.onRuntime(LabPrerequisites.requireJavaRuntime(25)).withOptions(List.of(NATIVE_ACCESS));
        } else if (onJava11) {
            jvm = jvm.onRuntime(LabPrerequisites.requireJavaRuntime(11));
        }
        KafkaBroker.Builder brokerBuilder = KafkaBroker.inLab(lab)
                .version(release)
                .onRuntime(jvm.javaHome())
                .agent("interval=1s");
        jvm.options().forEach(brokerBuilder::jvmOption);
        KafkaBroker broker = brokerBuilder.start();
        LabTopics.create(broker, TOPIC, 1);
        // 1 MB: the findings judge the socket and its RTT, not the bytes; 3 MB cost each release 3 s more
        LabTopics.fill(broker, TOPIC, RECORDS, 1_000);
        Version connect = release.hasConnect() ? release : Version.V4_3;
        try (LabConnectWorker worker = LabConnectWorker.start(
                lab,
                broker,
                Map.of(
                        "rest.extension.classes", "io.tcpsight.connect.TcpsightRestExtension",
                        "consumer.receive.buffer.bytes", "65536",
                        "tcpsight.sample.interval.ms", "1000",
                        "config.providers", "tcpsight",
                        "config.providers.tcpsight.class", "io.tcpsight.connect.TcpsightConfigProvider",
                        "connector.client.config.override.policy", "All"),
                "interval=1s",
                connect,
                jvm)) {
            Path sink = worker.directory().resolve("matrix.txt");
            worker.put(
                    "/connectors/" + CONNECTOR + "/config",
                    Map.of(
                            "connector.class", "org.apache.kafka.connect.file.FileStreamSinkConnector",
                            "tasks.max", "1",
                            "topics", TOPIC,
                            "file", sink.toString(),
                            "consumer.override.max.partition.fetch.bytes",
                                    "${tcpsight:fetch:max.partition.fetch.bytes}"));
            worker.awaitRunning(CONNECTOR, 1, Duration.ofSeconds(120));
            FindingView fromPlugin = await(
                    "the plugin's finding", worker, () -> smallReceiveBuffer(worker.getText("/tcpsight/findings")));
            FindingView fromWorkerAgent = await(
                    "the worker agent's finding",
                    worker,
                    () -> smallReceiveBuffer(worker.agent().getText("/findings")));
            ConnectionView atBroker = await(
                    "the broker agent's view of the task consumer",
                    worker,
                    () -> ConnectionView.list(broker.agentGet("/connections?top=1000")).stream()
                            .filter(c -> TASK_CONSUMER.equals(c.clientId())
                                    && "to_client".equals(c.connection().flow()))
                            .findFirst()
                            .orElse(null));
            List<String> delivered = awaitLines(sink);
            String brokerLog = broker.process().output();
            String workerLog = worker.process().output();
            String fetchSizeGiven = workerLog
                    .lines()
                    .filter(line -> line.contains("max.partition.fetch.bytes = ")
                            && !line.contains("max.partition.fetch.bytes = 1048576"))
                    .map(line -> line.substring(line.indexOf("max.partition.fetch.bytes = ")))
                    .findFirst()
                    .orElse("(Kafka's default)");
            boolean taskConsumerServed = ConnectionView.list(worker.getText("/tcpsight/connections?top=100")).stream()
                    .anyMatch(c -> TASK_CONSUMER.equals(c.clientId()));
            String scrape = worker.getText("/tcpsight/metrics");
            System.out.printf(
                    "Kafka %s (Connect %s) on %s: plugin %s %s; worker agent %s; broker agent sees %s (%s, flow %s);"
                            + " %d of %d records delivered, the task consumer given %s%n",
                    release.release(),
                    connect.release(),
                    onJava25 ? "Java 25" : onJava11 ? "Java 11" : "the lab's Java",
                    fromPlugin.rule(),
                    fromPlugin.severity(),
                    fromWorkerAgent.rule(),
                    atBroker.clientId(),
                    atBroker.connection().clientSoftware(),
                    atBroker.connection().flow(),
                    delivered.size(),
                    RECORDS,
                    fetchSizeGiven);
            assertEquals("critical", fromPlugin.severity(), fromPlugin.toString());
            assertEquals(CONNECTOR, fromPlugin.connection().connector());
            List<String> keys = new ArrayList<>();
            fromPlugin.remedy().settings().forEach(setting -> keys.add(setting.key() + "=" + setting.value()));
            assertTrue(keys.contains("consumer.override.receive.buffer.bytes=-1"), keys.toString());
            assertEquals("client", fromWorkerAgent.connection().role());
            assertEquals(
                    "apache-kafka-java/" + connect.release(),
                    atBroker.connection().clientSoftware());
            assertEquals(RECORDS, delivered.size(), "every record delivered");
            assertEquals(RECORDS, new HashSet<>(delivered).size(), "no record delivered twice");
            assertTrue(fetchSizeGiven.startsWith("max.partition.fetch.bytes = "), "the placeholder resolved");
            assertTrue(taskConsumerServed, "the task consumer among /tcpsight/connections");
            assertTrue(scrape.contains("tcpsight_connection_rtt_seconds_bucket"), "/tcpsight/metrics served");
            assertFalse(
                    brokerLog.contains("tcpsight agent: could not instrument"),
                    "a hook refused on the broker:\n" + brokerLog);
            assertFalse(
                    workerLog.contains("tcpsight agent: could not instrument"),
                    "a hook refused in the worker:\n" + workerLog);
            String runtime = jvm.javaHome().toRealPath().toString(); // as /proc/<pid>/exe gives it
            for (LabProcess process : List.of(broker.process(), worker.process())) {
                String command = process.process().info().command().orElse("");
                assertTrue(command.startsWith(runtime), "runs on " + runtime + ": " + command);
                String output = process.output();
                assertFalse(
                        output.contains("WARNING: A restricted method") || output.contains("System::load"),
                        "a JEP 472 warning" + (onJava25 ? " with " + NATIVE_ACCESS : "") + ":\n" + output);
                assertEquals(List.of(), JvmWarnings.ofHotSpot(output), output);
            }
        }
    }

    /** The critical or warn small-receive-buffer finding for the task consumer, or null. */
    private static FindingView smallReceiveBuffer(String findings) throws Exception {
        return FindingView.list(findings).stream()
                .filter(f -> f.is("small-receive-buffer")
                        && !f.severity().equals("info")
                        && TASK_CONSUMER.equals(f.connection().clientId()))
                .findFirst()
                .orElse(null);
    }

    private static <T> T await(String what, LabConnectWorker worker, Callable<T> probe) {
        return LabAwait.await(what)
                .atMost(Duration.ofSeconds(45))
                .every(Duration.ofMillis(500))
                .explainedBy(() -> "worker output:\n" + worker.process().output())
                .until(probe);
    }

    private static List<String> awaitLines(Path sink) {
        return LabAwait.await(RECORDS + " records at the sink")
                .atMost(Duration.ofSeconds(90))
                .until(() -> {
                    List<String> lines = Files.exists(sink) ? Files.readAllLines(sink) : List.of();
                    return lines.size() >= RECORDS ? lines : null;
                });
    }
}
