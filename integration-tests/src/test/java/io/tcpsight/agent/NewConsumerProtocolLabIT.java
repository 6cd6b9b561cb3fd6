package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabConnectWorker;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.ReporterFindings;
import io.tcpsight.lab.ReportingConsumer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The new consumer group protocol (KIP-848, {@code group.protocol=consumer}: the async consumer
 * with its background network thread), 100 ms from the broker with a 64 KiB receive buffer, in a
 * JVM with both the reporter and the agent: the reporter, the agent in the client and the broker
 * agent each name it by its client.id, as they do a classic consumer; and so does the Connect
 * plugin a worker's task consumers on it.
 */
// Its claims are names and keys, and its time goes to round trips across its own lab's line (a worker's
// start-up): it may run beside another lab class, each in its own lab, as VersionMatrixLabIT's releases do.
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class NewConsumerProtocolLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final String CLIENT_ID = "kip848-consumer";

    @Test
    void aConsumerOnTheNewGroupProtocolIsNamedByTheReporterTheClientAgentAndTheBrokerAgent() throws Exception {
        KernelLab lab = LAB.start(
                KernelLab.builder().link(Link.rtt(Duration.ofMillis(100)).rateMbit(200)));
        KafkaBroker broker = KafkaBroker.inLab(lab)
                .shortLivedJvm()
                .agent("interval=1s")
                .overrides(Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"))
                .start();
        LabTopics.create(broker, "kip848", 1);
        LabTopics.fill(broker, "kip848", 2_000, 10_000); // 20 MB: more than 64 KiB at 100 ms moves in the run
        int clientAgentPort = KafkaBroker.freePort();
        LabProcess consumer = lab.javaInClient(
                CLIENT_ID,
                List.of("-javaagent:" + LabPaths.agentJar() + "=port=" + clientAgentPort + ",interval=1s"),
                ReportingConsumer.class,
                broker.bootstrapServers(),
                "kip848",
                CLIENT_ID,
                "15",
                "200",
                "receive.buffer.bytes=65536",
                "group.protocol=consumer",
                // Kafka's default fetch sizes: the first records arrive after one 1 MiB response, not a 32 MiB one
                "max.partition.fetch.bytes=1048576",
                "fetch.max.bytes=52428800");
        String clientAgent = "http://127.0.0.1:" + clientAgentPort;
        FindingView fromClientAgent = LabAwait.await("the client agent's finding for " + CLIENT_ID)
                .atMost(Duration.ofSeconds(60))
                .every(Duration.ofMillis(500))
                .unless(() -> !consumer.process().isAlive())
                .explainedBy(consumer::output)
                .until(() -> named(FindingView.list(KafkaBroker.httpGet(clientAgent + "/findings")), "client"));
        FindingView fromBrokerAgent = LabAwait.await("the broker agent's finding for " + CLIENT_ID)
                .atMost(Duration.ofSeconds(30))
                .every(Duration.ofMillis(500))
                .until(() -> named(FindingView.list(broker.agentGet("/findings")), "broker"));
        GroupType protocol;
        Map<String, Object> adminConfig = new HashMap<>(broker.adminSecurity());
        adminConfig.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        try (Admin admin = Admin.create(adminConfig)) {
            protocol = admin.describeConsumerGroups(List.of(CLIENT_ID))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(CLIENT_ID)
                    .type();
        }
        assertEquals(0, consumer.awaitExit(Duration.ofSeconds(90)), consumer.output());
        FindingView fromReporter = named(ReporterFindings.printedIn(consumer.output()), "client");
        System.out.println("group " + CLIENT_ID + " is of type " + protocol);
        System.out.println("the reporter: " + fromReporter);
        System.out.println("the agent in the client: " + fromClientAgent);
        System.out.println("the broker agent: " + fromBrokerAgent);
        assertEquals(GroupType.CONSUMER, protocol, "the consumer did not use the new group protocol");
        assertTrue(fromReporter != null, "the reporter named nothing: " + consumer.output());
        assertEquals("small-receive-buffer", fromReporter.rule());
        assertEquals("small-receive-buffer", fromClientAgent.rule());
        assertEquals(
                "receive.buffer.bytes",
                fromClientAgent.remedy().settings().get(0).key());
        assertEquals("to_client", fromBrokerAgent.connection().flow());
    }

    /**
     * A Connect worker whose task consumers use the new protocol ({@code consumer.group.protocol=consumer}):
     * the plugin names a task consumer 100 ms away with its 64 KiB buffer, as it does a classic one.
     */
    @Test
    void aConnectWorkersTaskConsumersOnTheNewGroupProtocolAreNamedByThePlugin() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(100)).rateMbit(200))
                .clientInNamespace());
        KafkaBroker broker = KafkaBroker.inLab(lab).shortLivedJvm().start();
        LabTopics.create(broker, "kip848-connect", 2);
        LabTopics.fill(broker, "kip848-connect", 2_000, 1_000);
        try (LabConnectWorker worker = LabConnectWorker.startShortLived(
                lab,
                broker,
                Map.of(
                        "rest.extension.classes", "io.tcpsight.connect.TcpsightRestExtension",
                        "consumer.receive.buffer.bytes", "65536",
                        "consumer.group.protocol", "consumer",
                        "tcpsight.sample.interval.ms", "1000"),
                null)) {
            worker.put(
                    "/connectors/kip848-sink/config",
                    Map.of(
                            "connector.class", "org.apache.kafka.connect.file.FileStreamSinkConnector",
                            "tasks.max", "2",
                            "topics", "kip848-connect",
                            "file", worker.directory().resolve("kip848.txt").toString()));
            worker.awaitRunning("kip848-sink", 2, Duration.ofSeconds(120));
            FindingView fromPlugin = LabAwait.await("the plugin's finding for a task consumer")
                    .atMost(Duration.ofSeconds(45))
                    .every(Duration.ofMillis(500))
                    .explainedBy(() -> "worker output:\n" + worker.process().output())
                    .until(() -> FindingView.list(worker.getText("/tcpsight/findings")).stream()
                            .filter(f -> f.is("small-receive-buffer")
                                    && f.severity().equals("critical")
                                    && f.clientIdStartsWith("connector-consumer-kip848-sink-"))
                            .findFirst()
                            .orElse(null));
            GroupType protocol;
            Map<String, Object> adminConfig = new HashMap<>(broker.adminSecurity());
            adminConfig.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            try (Admin admin = Admin.create(adminConfig)) {
                // The finding comes from the consumer's first connection; the group exists only once its first
                // heartbeat has reached the coordinator (GroupIdNotFoundException before, seen once on a busy host).
                protocol = LabAwait.await("group connect-kip848-sink with members")
                        .atMost(Duration.ofSeconds(60))
                        .every(Duration.ofMillis(500))
                        .until(() -> {
                            try {
                                ConsumerGroupDescription group = admin.describeConsumerGroups(
                                                List.of("connect-kip848-sink"))
                                        .all()
                                        .get(30, TimeUnit.SECONDS)
                                        .get("connect-kip848-sink");
                                return group.members().isEmpty() ? null : group.type();
                            } catch (ExecutionException notYet) {
                                if (notYet.getCause() instanceof GroupIdNotFoundException) {
                                    return null;
                                }
                                throw notYet;
                            }
                        });
            }
            System.out.println("group connect-kip848-sink is of type " + protocol + "; the plugin: "
                    + fromPlugin.rule() + " " + fromPlugin.severity() + " for "
                    + fromPlugin.connection().clientId()
                    + ", flow " + fromPlugin.connection().flow());
            assertEquals(GroupType.CONSUMER, protocol, "the task consumers did not use the new group protocol");
            assertEquals("kip848-sink", fromPlugin.connection().connector());
            assertEquals("to_client", fromPlugin.connection().flow());
        }
    }

    /** The first warn or critical finding of this end's role naming the consumer, or null. */
    private static FindingView named(List<FindingView> findings, String role) {
        return findings.stream()
                .filter(f -> !f.severity().equals("info")
                        && CLIENT_ID.equals(f.connection().clientId())
                        && role.equals(f.connection().role()))
                .filter(f -> !role.equals("client") || f.is("small-receive-buffer"))
                .findFirst()
                .orElse(null);
    }
}
