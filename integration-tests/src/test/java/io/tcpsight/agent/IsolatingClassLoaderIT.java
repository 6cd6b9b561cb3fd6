package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.tcp.BootLoaderClasses;
import io.tcpsight.lab.ConnectionView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.LabProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Kafka's clients in an isolating class loader, with the agent in their JVM: before the hooks
 * moved to the bootstrap class path, Selector.connect threw NoClassDefFoundError into Kafka there.
 */
// runs nothing across the delay line: may run beside the lab classes (HostCpu)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class IsolatingClassLoaderIT {
    private static final int RECORDS = 200;
    private static final String HOOKS = BootLoaderClasses.HOOKS_PACKAGE + "Hooks";
    /** The agent's copy of tcpsight's classes is relocated under io.tcpsight.shaded (broker-agent/pom.xml). */
    private static final String DEFINER = "io.tcpsight.shaded.tcp." + BootLoaderClasses.class.getSimpleName();

    @Test
    void clientsInAnIsolatingLoaderProduceConsumeAndAreNamedByTheAgent() throws Exception {
        try (KafkaBroker broker = KafkaBroker.onLoopback().shortLivedJvm().start()) {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic("isolated", 1, (short) 1)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
            }
            int agentPort = KafkaBroker.freePort();
            // where the JVM says each class came from: the hooks from the JNI library, not a jar on the boot class path
            Path classLoads = Files.createTempFile(LabPaths.work(), "isolated-class-load-", ".log");
            List<String> command = List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xlog:class+load=info:file=" + classLoads,
                    "-javaagent:" + LabPaths.agentJar() + "=port=" + agentPort + ",interval=1s",
                    "-cp",
                    Path.of("target", "test-classes").toAbsolutePath().toString(),
                    IsolatedKafkaClients.class.getName(),
                    broker.bootstrapServers(),
                    LabPaths.kafkaLib().toString(),
                    "isolated",
                    Integer.toString(RECORDS));
            try (LabProcess clients = LabProcess.start(
                    "isolated-clients-" + ProcessHandle.current().pid(), command)) {
                Matcher done = clients.awaitLine(
                        "isolated clients: consumed (\\d+) of " + RECORDS + ", hooks from (.*)$",
                        Duration.ofSeconds(90));
                assertEquals(Integer.toString(RECORDS), done.group(1), "every record came back");
                assertEquals("the bootstrap loader", done.group(2));
                String hooksLoaded = " " + HOOKS + " source: ";
                List<String> hookSources = Files.readAllLines(classLoads).stream()
                        .filter(line -> line.contains(hooksLoaded))
                        .map(line -> line.substring(line.indexOf(hooksLoaded) + hooksLoaded.length()))
                        .collect(Collectors.toList());
                assertEquals(List.of("instance of " + DEFINER), hookSources);

                String url = "http://127.0.0.1:" + agentPort + "/connections?top=50";
                Set<String> named = LabAwait.await("the agent names both isolated clients' connections")
                        .atMost(Duration.ofSeconds(30))
                        .unless(() -> !clients.process().isAlive())
                        .explainedBy(clients::output)
                        .until(() -> {
                            Set<String> clientIds = ConnectionView.list(KafkaBroker.httpGet(url)).stream()
                                    .map(ConnectionView::clientId)
                                    .collect(Collectors.toSet());
                            return clientIds.containsAll(Set.of("isolated-producer", "isolated-consumer"))
                                    ? clientIds
                                    : null;
                        });
                System.out.println("agent in the isolating JVM named " + named);

                String output = clients.output();
                assertFalse(output.contains("NoClassDefFoundError"), output);
                List<String> agentLines = output.lines()
                        .filter(line -> line.contains("tcpsight agent"))
                        .collect(Collectors.toList());
                assertEquals(1, agentLines.size(), "one line from the agent, its start: " + agentLines);
                assertTrue(agentLines.get(0).contains("tcpsight agent started"), agentLines.get(0));
            }
        }
    }
}
