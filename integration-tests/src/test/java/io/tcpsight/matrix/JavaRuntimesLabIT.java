package io.tcpsight.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.FindingView;
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
import io.tcpsight.lab.ReporterFindings;
import io.tcpsight.lab.ReportingConsumer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client side on the oldest and the newest Java runtime it claims (the modules are built with
 * release 11; the lab itself runs on 17): a 64 KiB consumer 100 ms from the broker, with the
 * reporter and the agent, on Java 11 and on Java 25 at once. On each, both name it with
 * {@code small-receive-buffer}.
 */
class JavaRuntimesLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final List<Integer> RUNTIMES = List.of(11, 25);

    @Test
    void theReporterAndTheAgentJudgeAConsumerOnJava11AndJava25() throws Exception {
        Map<Integer, Path> homes = new LinkedHashMap<>();
        RUNTIMES.forEach(feature -> homes.put(feature, LabPrerequisites.requireJavaRuntime(feature)));
        KernelLab lab = LAB.start(
                KernelLab.builder().link(Link.rtt(Duration.ofMillis(100)).rateMbit(200)));
        KafkaBroker broker = KafkaBroker.start(lab, Map.of());
        LabTopics.create(broker, "runtimes", 1);
        LabTopics.fill(broker, "runtimes", 3_000, 1_000);
        Map<Integer, LabProcess> consumers = new LinkedHashMap<>();
        Map<Integer, Integer> agentPorts = new LinkedHashMap<>();
        for (Map.Entry<Integer, Path> runtime : homes.entrySet()) {
            int port = KafkaBroker.freePort();
            agentPorts.put(runtime.getKey(), port);
            LabJvm jvm = LabJvm.ofThisJvm()
                    .onRuntime(runtime.getValue())
                    .withOptions(List.of("-javaagent:" + LabPaths.agentJar() + "=port=" + port + ",interval=1s"));
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
        }
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
