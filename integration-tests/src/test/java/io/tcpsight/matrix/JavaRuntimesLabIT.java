package io.tcpsight.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.JvmWarnings;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabJvm;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.RemoteProducer;
import io.tcpsight.lab.ReporterFindings;
import io.tcpsight.lab.ReportingConsumer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The client side on the oldest and the newest Java runtime it claims (the modules are built with
 * release 11; the lab itself runs on 17): a 64 KiB consumer 100 ms from the broker, with the
 * reporter and the agent, on Java 11 and on Java 25 at once. On each, both name it with
 * {@code small-receive-buffer}. Java 25 runs with {@code --enable-native-access=ALL-UNNAMED}, as the
 * docs say, and prints none of JEP 472's warnings; beside it a Java 25 JVM with
 * {@code --illegal-native-access=deny} refuses the library, and its agent runs on without it (its
 * endpoint answers) with one line that names the option, where it once disabled itself.
 */
// Its claims are exit codes, names and warnings, and its time goes to JVM start-ups and round trips across its own
// lab's line: it may run beside another lab class, each in its own lab, as VersionMatrixLabIT's releases do.
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class JavaRuntimesLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final List<Integer> RUNTIMES = List.of(11, 25);
    private static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    @Test
    void theReporterAndTheAgentJudgeAConsumerOnJava11AndJava25() throws Exception {
        Map<Integer, Path> homes = new LinkedHashMap<>();
        RUNTIMES.forEach(feature -> homes.put(feature, LabPrerequisites.requireJavaRuntime(feature)));
        KernelLab lab = LAB.start(
                KernelLab.builder().link(Link.rtt(Duration.ofMillis(100)).rateMbit(200)));
        KafkaBroker broker = KafkaBroker.inLab(lab).shortLivedJvm().start(); // names, findings, warnings: no rate
        LabTopics.create(broker, "runtimes", 1);
        LabTopics.fill(broker, "runtimes", 3_000, 1_000);
        Map<Integer, LabProcess> consumers = new LinkedHashMap<>();
        Map<Integer, Integer> agentPorts = new LinkedHashMap<>();
        for (Map.Entry<Integer, Path> runtime : homes.entrySet()) {
            int port = KafkaBroker.freePort();
            agentPorts.put(runtime.getKey(), port);
            List<String> options = new ArrayList<>();
            if (runtime.getKey() >= 17) {
                options.add(NATIVE_ACCESS); // as the docs say for Java 24 and later; Java 11 refuses to start with it
            }
            options.add("-javaagent:" + LabPaths.agentJar() + "=port=" + port + ",interval=1s");
            LabJvm jvm = LabJvm.ofThisJvm().onRuntime(runtime.getValue()).withOptions(options);
            consumers.put(
                    runtime.getKey(),
                    lab.javaInClient(
                            "java" + runtime.getKey(),
                            jvm,
                            ReportingConsumer.class,
                            broker.bootstrapServers(),
                            "runtimes",
                            clientId(runtime.getKey()),
                            "12",
                            "200",
                            "receive.buffer.bytes=65536",
                            "max.partition.fetch.bytes=1048576",
                            "fetch.max.bytes=52428800"));
        }
        // And Java 25 as a later Java will run by default: it refuses the library, and the agent runs on without it
        // (the reporter is then off, so this JVM is a producer with the agent alone).
        int deniedPort = KafkaBroker.freePort();
        LabProcess denied = lab.javaInClient(
                "java25-denied",
                LabJvm.ofThisJvm()
                        .onRuntime(homes.get(25))
                        .withOptions(List.of(
                                "--illegal-native-access=deny",
                                "-javaagent:" + LabPaths.agentJar() + "=port=" + deniedPort + ",interval=1s")),
                RemoteProducer.class,
                broker.bootstrapServers(),
                "runtimes-denied",
                "denied-producer",
                "10");
        // No time is claimed, only that it answers while the JVM lives: a start beside the other lane's classes and
        // three JVMs of this class once had 2 CPU-s in its first 10 s, still loading classes (docs/lab.md)
        String deniedMetrics = LabAwait.await("the endpoint of the agent whose JVM refused its library")
                .atMost(Duration.ofSeconds(60))
                .every(Duration.ofMillis(250))
                .unless(() -> !denied.process().isAlive())
                // where its start waits, and on what: the agent's start line (INFO) never came when this failed
                .explainedBy(() -> "the denied JVM printed, and its threads:\n" + denied.outputWithThreadDump())
                .until(() -> KafkaBroker.httpGet("http://127.0.0.1:" + deniedPort + "/metrics"));
        // Both run at once: each agent is asked every round, while its consumer is still alive.
        Map<Integer, FindingView> fromAgents = new LinkedHashMap<>();
        LabAwait.await("the agents' findings on Java " + RUNTIMES)
                .atMost(Duration.ofSeconds(60))
                .every(Duration.ofMillis(500))
                .explainedBy(() -> "found on " + fromAgents.keySet())
                .untilTrue(() -> {
                    for (int feature : RUNTIMES) {
                        if (!fromAgents.containsKey(feature)
                                && consumers.get(feature).process().isAlive()) {
                            FindingView found = smallReceiveBuffer(
                                    FindingView.list(KafkaBroker.httpGet(
                                            "http://127.0.0.1:" + agentPorts.get(feature) + "/findings")),
                                    feature);
                            if (found != null) {
                                fromAgents.put(feature, found);
                            }
                        }
                    }
                    return fromAgents.size() == RUNTIMES.size();
                });
        for (int feature : RUNTIMES) {
            LabProcess consumer = consumers.get(feature);
            FindingView fromAgent = fromAgents.get(feature);
            assertEquals(0, consumer.awaitExit(Duration.ofSeconds(90)), consumer.output());
            FindingView fromReporter = smallReceiveBuffer(ReporterFindings.printedIn(consumer.output()), feature);
            String runtime = consumer.output()
                    .lines()
                    .filter(line -> line.startsWith("runtime "))
                    .findFirst()
                    .orElse("runtime (not printed)");
            System.out.println("Java " + feature + " (" + runtime + "): the reporter " + brief(fromReporter)
                    + "; the agent " + brief(fromAgent));
            assertTrue(
                    fromReporter != null, "the reporter on Java " + feature + " named nothing:\n" + consumer.output());
            assertTrue(runtime.startsWith("runtime " + feature + "."), runtime);
            assertEquals("client", fromAgent.connection().role());
            // Java 25 maps its default class archive; an agent that grew the boot class path made HotSpot warn
            assertEquals(List.of(), JvmWarnings.ofHotSpot(consumer.output()), consumer.output());
        }
        String java25 = consumers.get(25).output();
        assertTrue(
                !java25.contains("WARNING: A restricted method") && !java25.contains("System::load"),
                "no JEP 472 warning on Java 25 with " + NATIVE_ACCESS + ":\n" + java25);
        assertTrue(!java25.contains("tcpsight: Java 25 warned"), java25);
        assertEquals(0, denied.awaitExit(Duration.ofSeconds(60)), denied.output());
        List<String> refusal = linesNaming(denied.output(), "this JVM refuses native access");
        System.out.println("Java 25 with --illegal-native-access=deny: /metrics answered " + deniedMetrics.length()
                + " bytes; " + String.join("\n", refusal));
        assertTrue(deniedMetrics.contains("tcpsight_connections"), deniedMetrics);
        assertTrue(!denied.output().contains("tcpsight agent disabled"), denied.output());
        assertEquals(1, refusal.size(), denied.output());
        assertTrue(refusal.get(0).contains(NATIVE_ACCESS), refusal.get(0));
        // without its library the agent appends its hooks to the boot class path, and HotSpot says once what that
        // costs: the check the other JVMs pass sees the warning where it is due
        assertEquals(
                List.of("OpenJDK 64-Bit Server VM warning: Sharing is only supported for boot loader classes because"
                        + " bootstrap classpath has been appended"),
                JvmWarnings.ofHotSpot(denied.output()),
                denied.output());
    }

    private static List<String> linesNaming(String output, String text) {
        return output.lines().filter(line -> line.contains(text)).collect(Collectors.toList());
    }

    private static String brief(FindingView finding) {
        return finding == null
                ? "(none)"
                : finding.rule() + " " + finding.severity() + " for "
                        + finding.connection().clientId() + " node "
                        + finding.connection().nodeId();
    }

    private static String clientId(int feature) {
        return "java" + feature + "-consumer";
    }

    /** The warn or critical small-receive-buffer finding for that runtime's consumer, or null. */
    private static FindingView smallReceiveBuffer(List<FindingView> findings, int feature) {
        return findings.stream()
                .filter(f -> f.is("small-receive-buffer")
                        && !f.severity().equals("info")
                        && clientId(feature).equals(f.connection().clientId()))
                .findFirst()
                .orElse(null);
    }
}
