package io.tcpsight.doctor.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.Diagnosis;
import io.tcpsight.internal.diagnose.config.BrokerConfigRules;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.FindingJson;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.KernelVersion;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The fleet's report from findings the core's own rules make, served as the agents serve them
 * (FindingJson) and read back: consumers 100 ms from brokers 1 and 2, some with
 * receive.buffer.bytes=65536 (a window clamped at 65536 bytes: 65536 / 0.1 s = 5.2 Mbit/s), one
 * autotuned (the control), and both brokers with Kafka's socket.send.buffer.bytes=102400.
 */
class FleetReportTest {
    private static final TcpsightConfig DEFAULTS = TcpsightConfig.defaults();
    private static final KernelFacts KERNEL =
            new KernelFacts(KernelVersion.of(6, 18, 0), 33_554_432L, 4_194_304L, 1L, 1L);
    private static final FleetSource BROKER_1 = FleetSource.broker(1, URI.create("http://10.0.0.1:9464"));
    private static final FleetSource BROKER_2 = FleetSource.broker(2, URI.create("http://10.0.0.2:9464"));
    private static final FleetSource BROKER_3 = FleetSource.broker(3, URI.create("http://10.0.0.3:9464"));
    private static final FleetSource WORKER = FleetSource.worker(URI.create("http://10.0.0.9:8083"));

    /** A consumer's socket from 10.0.0.5:{@code port} to broker {@code node}, judged at the client's end. */
    private static ConnectionIdentity consumer(String clientId, int port, int node) {
        return ConnectionIdentity.of(
                        Role.CLIENT,
                        new InetSocketAddress("10.0.0.5", port),
                        new InetSocketAddress("10.0.0." + node, 9092))
                .withClientId(clientId)
                .withNodeId(Integer.toString(node))
                .withListener("PLAINTEXT");
    }

    private static List<Finding> judged(ConnectionIdentity identity, boolean smallBuffer) {
        ConnectionFacts facts = ConnectionFacts.builder(identity)
                .established(true)
                .rttMicros(100_000)
                .windowScaling(true)
                .rcvWindowScale(smallBuffer ? 2 : 10)
                .receiveBufferBytes(smallBuffer ? 131_072 : 6_000_000)
                .windowClampBytes(smallBuffer ? 65_536 : 3_000_000)
                .kafka(KafkaSettings.fromClientConfig(
                        smallBuffer
                                ? Map.of("receive.buffer.bytes", "65536")
                                // what the rules ask at 100 ms: nothing to say of it (the control)
                                : Map.of(
                                        "receive.buffer.bytes",
                                        "-1",
                                        "max.partition.fetch.bytes",
                                        "11534336",
                                        "max.poll.records",
                                        "51200"),
                        ClientKind.CONSUMER))
                .kernel(KERNEL)
                .build();
        return Diagnosis.connection(facts, DEFAULTS);
    }

    /** As an agent serves its findings and the fleet reads them back. */
    private static FleetAnswer served(FleetSource source, List<Finding> findings) {
        return FleetAnswer.answered(source, FleetFinding.parse(FindingJson.array(findings)));
    }

    private static List<FleetAnswer> fleet() {
        List<Finding> onBroker1 = new ArrayList<>();
        onBroker1.addAll(judged(consumer("consumer-64k", 50001, 1), true));
        onBroker1.addAll(judged(consumer("consumer-auto", 50003, 1), false));
        onBroker1.add(BrokerConfigRules.sendBuffer(
                        Map.of("socket.send.buffer.bytes", "102400"),
                        consumer("consumer-64k", 50001, 1),
                        100_000,
                        DEFAULTS)
                .orElseThrow());
        List<Finding> onBroker2 = new ArrayList<>();
        onBroker2.addAll(judged(consumer("consumer-64k", 50002, 2), true));
        onBroker2.addAll(judged(consumer("consumer-one", 50004, 2), true));
        onBroker2.add(BrokerConfigRules.sendBuffer(
                        Map.of("socket.send.buffer.bytes", "102400"),
                        consumer("consumer-64k", 50002, 2),
                        100_000,
                        DEFAULTS)
                .orElseThrow());
        return List.of(
                served(BROKER_1, onBroker1),
                served(BROKER_2, onBroker2),
                FleetAnswer.failed(BROKER_3, "connection refused (no agent listening there?)"),
                // the same socket to broker 1 as the worker's plugin judged it: one connection, not two
                served(WORKER, judged(consumer("consumer-64k", 50001, 1), true)));
    }

    @Test
    void eachLimitedOwnerOnceWithItsKeysMostConnectionsFirstAndNoControl() {
        FleetReport report = FleetReport.of(fleet());
        List<FleetReport.Entry> clients = report.entries(FleetReport.Section.CLIENTS);
        assertEquals(2, clients.size(), FleetOutput.text(report));
        FleetReport.Entry first = clients.get(0);
        assertEquals(Set.of("client.id consumer-64k"), first.who);
        assertEquals(2, first.connections.size(), "two sockets, one of them judged at both ends: " + first.connections);
        assertEquals(Set.of("broker 1", "broker 2"), first.concerns);
        assertTrue(first.changes.containsKey("receive.buffer.bytes=-1 (client, java)"), first.changes.toString());
        assertEquals("critical", first.rules.get("small-receive-buffer"), first.rules.toString());
        assertEquals(Set.of("client.id consumer-one"), clients.get(1).who);
        assertEquals(1, clients.get(1).connections.size());
        assertFalse(FleetOutput.text(report).contains("consumer-auto"), FleetOutput.text(report));
    }

    /**
     * Each limited socket: 5.2 Mbit/s now (its window), and what its own findings say all their
     * remedies give together; the owner's gain is the sum over its two sockets.
     */
    @Test
    void anOwnersGainIsWhatEachOfItsConnectionsShouldGain() {
        List<Finding> one = judged(consumer("consumer-64k", 50001, 1), true);
        double after = one.stream()
                        .filter(finding -> finding.expectedAfterAll().isPresent())
                        .findFirst()
                        .orElseThrow()
                        .expectedAfterAll()
                        .getAsDouble()
                * 8
                / 1e6;
        FleetReport.Entry first =
                FleetReport.of(fleet()).entries(FleetReport.Section.CLIENTS).get(0);
        assertEquals(2, first.connectionsWithGain());
        assertEquals(2 * 5.2, first.nowMbit(), 0.05);
        assertEquals(2 * (Math.round(after * 10) / 10.0), first.afterMbit(), 0.05);
        assertEquals(first.afterMbit() - first.nowMbit(), first.gainMbit(), 1e-9);
        assertTrue(first.gainMbit() > 100, "two sockets from 5.2 to " + after + " Mbit/s each: " + first.gainMbit());
    }

    @Test
    void oneBrokerSettingOnTwoBrokersIsOneEntry() {
        FleetReport report = FleetReport.of(fleet());
        List<FleetReport.Entry> servers = report.entries(FleetReport.Section.SERVERS);
        FleetReport.Entry sendBuffer = servers.stream()
                .filter(entry -> entry.changes.keySet().stream()
                        .anyMatch(change -> change.startsWith("broker socket.send.buffer.bytes=")))
                .findFirst()
                .orElseThrow(() -> new AssertionError(FleetOutput.text(report)));
        assertEquals(Set.of("broker 1", "broker 2"), sendBuffer.who);
        assertEquals(2, sendBuffer.connections.size());
        // one remedy: the broker's key and its host's max together, never a host entry of its own
        assertTrue(
                sendBuffer.changes.keySet().stream()
                        .anyMatch(change -> change.startsWith("broker-host sysctl net.ipv4.tcp_wmem=")),
                sendBuffer.changes.toString());
        assertEquals(List.of(), report.entries(FleetReport.Section.HOSTS_AND_PATHS));
        assertTrue(
                FleetOutput.text(report)
                        .contains("  1. broker 1, broker 2: 2 connections of broker 1, broker 2; once every"
                                + " remedy named for them is applied: 10.4 -> 180.4 Mbit/s (+170.0)"),
                FleetOutput.text(report));
    }

    @Test
    void aSourceThatDidNotAnswerIsListedWithItsReasonAndTheRestIsReported() throws Exception {
        FleetReport report = FleetReport.of(fleet());
        String text = FleetOutput.text(report);
        assertTrue(
                text.startsWith("tcpsight fleet: 3 of 4 sources answered (broker 1, broker 2, worker 10.0.0.9:8083)"),
                text);
        assertTrue(
                text.contains(
                        "broker 3 at http://10.0.0.3:9464/findings: connection refused (no agent listening there?)"),
                text);
        assertTrue(
                // a tie on connections and gain with consumer-64k's own keys: by name
                text.contains("The change that fixes the most: broker 1, broker 2: broker socket.send.buffer.bytes=-1;"
                        + " broker-host sysctl net.ipv4.tcp_wmem=4096 16384 5242880 (2 connections)"),
                text);
        JsonNode json = new ObjectMapper().readTree(FleetOutput.json(report));
        JsonNode silent = json.path("sources").get(2);
        assertEquals("broker 3", silent.path("source").asText());
        assertFalse(silent.path("answered").asBoolean(true));
        assertEquals(
                "connection refused (no agent listening there?)",
                silent.path("reason").asText());
        assertEquals(
                "client.id consumer-64k",
                json.path("clients").get(0).path("who").get(0).asText());
        assertEquals(2, json.path("clients").get(0).path("connections").asInt());
        assertFalse(report.everySourceAnswered());
        assertTrue(report.somethingToChange());
    }

    /** The agent's end of a socket: the broker local, the client remote, the principal it authenticated. */
    private static ConnectionIdentity atBroker(String clientId, int port, int node, String principal) {
        return ConnectionIdentity.of(
                        Role.BROKER,
                        new InetSocketAddress("10.0.0." + node, 9092),
                        new InetSocketAddress("10.0.0.5", port))
                .withClientId(clientId)
                .withNodeId(Integer.toString(node))
                .withListener("PLAINTEXT")
                .withPrincipal(principal);
    }

    /** One socket judged at the broker's end (with its principal) and at the client's: one connection of one owner. */
    @Test
    void aSocketBothEndsJudgedIsOneConnectionWithThePrincipalTheBrokerSaw() {
        FleetReport report = FleetReport.of(List.of(
                served(BROKER_1, judged(atBroker("consumer-64k", 50001, 1, "User:alice"), true)),
                served(WORKER, judged(consumer("consumer-64k", 50001, 1), true))));
        List<FleetReport.Entry> clients = report.entries(FleetReport.Section.CLIENTS);
        assertEquals(1, clients.size(), FleetOutput.text(report));
        assertEquals(Set.of("10.0.0.1:9092 10.0.0.5:50001"), clients.get(0).connections);
        assertEquals("User:alice", clients.get(0).principal.orElseThrow());
        assertEquals(1, clients.get(0).principalSeenOn.size());
        assertTrue(
                FleetOutput.text(report).contains("client.id consumer-64k (principal User:alice): 1 connection"),
                FleetOutput.text(report));
    }

    /**
     * A socket only a worker's plugin saw has no principal: it joins the owner's one known principal
     * without being said to be that principal's.
     */
    @Test
    void aSocketNoEndSawAPrincipalOnIsNeverSaidToBeThePrincipals() {
        FleetReport report = FleetReport.of(List.of(
                served(BROKER_1, judged(atBroker("consumer-64k", 50001, 1, "User:alice"), true)),
                served(WORKER, judged(consumer("consumer-64k", 50002, 2), true))));
        List<FleetReport.Entry> clients = report.entries(FleetReport.Section.CLIENTS);
        assertEquals(1, clients.size(), FleetOutput.text(report));
        assertEquals(2, clients.get(0).connections.size());
        assertEquals(1, clients.get(0).principalSeenOn.size());
        assertTrue(
                FleetOutput.text(report)
                        .contains(
                                "client.id consumer-64k (principal User:alice on 1 of its 2 connections; the others' not known)"),
                FleetOutput.text(report));
    }

    /** Two principals under one client.id are two owners, and a socket whose principal no end saw is neither's. */
    @Test
    void oneClientIdUnderTwoPrincipalsIsTwoOwnersAndAnUnseenSocketNeither() {
        FleetReport report = FleetReport.of(List.of(
                served(BROKER_1, judged(atBroker("shared", 50001, 1, "User:alice"), true)),
                served(BROKER_2, judged(atBroker("shared", 50002, 2, "User:bob"), true)),
                served(WORKER, judged(consumer("shared", 50003, 3), true))));
        List<FleetReport.Entry> clients = report.entries(FleetReport.Section.CLIENTS);
        assertEquals(3, clients.size(), FleetOutput.text(report));
        Set<String> principals = new TreeSet<>();
        clients.forEach(entry -> principals.add(entry.principal.orElse("(not known)")));
        assertEquals(Set.of("User:alice", "User:bob", "(not known)"), principals);
        assertTrue(
                FleetOutput.text(report).contains("client.id shared (principal not known): 1 connection"),
                FleetOutput.text(report));
    }

    /** Something to change on two connections comes before something critical on one; what informs comes last. */
    @Test
    void theMostConnectionsWithSomethingToChangeComeFirstWhateverTheSeverity() {
        String answer = "["
                + String.join(
                        ",",
                        finding("small-receive-buffer", "critical", "one", 50001, "receive.buffer.bytes", "-1"),
                        finding("fetch-size-below-bdp", "warn", "two", 50002, "receive.buffer.bytes", "-1"),
                        finding("fetch-size-below-bdp", "warn", "two", 50003, "receive.buffer.bytes", "-1"),
                        finding("small-receive-buffer", "info", "informed", 50004, "receive.buffer.bytes", "-1"),
                        finding("small-receive-buffer", "info", "informed", 50005, "receive.buffer.bytes", "-1"),
                        finding("small-receive-buffer", "info", "informed", 50006, "receive.buffer.bytes", "-1"))
                + "]";
        FleetReport report = FleetReport.of(List.of(FleetAnswer.answered(BROKER_1, FleetFinding.parse(answer))));
        List<String> order = new ArrayList<>();
        report.entries(FleetReport.Section.CLIENTS).forEach(entry -> order.add(String.join(",", entry.who)));
        assertEquals(List.of("client.id two", "client.id one", "client.id informed"), order, FleetOutput.text(report));
        assertTrue(
                FleetOutput.text(report)
                        .contains(
                                "The change that fixes the most: client.id two: receive.buffer.bytes=-1 (client, java) (2 connections)"),
                FleetOutput.text(report));
        assertEquals(FleetCommand.SOMETHING_TO_CHANGE, FleetCommand.exitCode(report));
    }

    /** One finding in the shared format, as an agent serves it: a client's socket to broker 1 and one Java key. */
    private static String finding(String rule, String severity, String clientId, int port, String key, String value) {
        return String.format(
                "{\"rule\":\"%s\",\"severity\":\"%s\",\"connection\":{\"role\":\"client\",\"clientId\":\"%s\","
                        + "\"local\":\"10.0.0.5:%d\",\"remote\":\"10.0.0.1:9092\"},\"evidence\":{},\"remedy\":{\"settings\":["
                        + "{\"scope\":\"client\",\"library\":\"java\",\"key\":\"%s\",\"value\":\"%s\"}],\"why\":\"\"}}",
                rule, severity, clientId, port, key, value);
    }

    /** Two ends ask one key for two sizes: the owner is told the one that does for both, once. */
    @Test
    void oneKeyAskedTwoWaysIsToldTheValueThatDoesForBoth() {
        String key = "max.partition.fetch.bytes";
        FleetReport report = FleetReport.of(List.of(
                FleetAnswer.answered(
                        BROKER_1,
                        FleetFinding.parse(
                                "[" + finding("fetch-size-below-bdp", "warn", "c", 50001, key, "6291456") + "]")),
                FleetAnswer.answered(
                        BROKER_2,
                        FleetFinding.parse(
                                "[" + finding("fetch-size-below-bdp", "warn", "c", 50002, key, "11534336") + "]")),
                FleetAnswer.answered(
                        WORKER,
                        FleetFinding.parse(
                                "[" + finding("fetch-size-below-bdp", "warn", "c", 50003, key, "6291456") + "]"))));
        assertEquals(
                Set.of("max.partition.fetch.bytes=11534336 (client, java)"),
                report.entries(FleetReport.Section.CLIENTS).get(0).changes.keySet(),
                FleetOutput.text(report));
    }

    @Test
    void theValueThatDoesForBothIsAutotuningWhereEitherAsksItInTheLibrarysOwnSpelling() {
        assertEquals("-1", FleetReport.Entry.either("receive.buffer.bytes", "65536", "-1"));
        assertEquals("-1", FleetReport.Entry.either("receive.buffer.bytes", "-1", "4194304"));
        assertEquals("0", FleetReport.Entry.either("socket.receive.buffer.bytes", "4194304", "0"));
        assertEquals("5", FleetReport.Entry.either("linger.ms", "0", "5"), "0 is autotuning for buffers only");
        assertEquals("11534336", FleetReport.Entry.either("max.partition.fetch.bytes", "6291456", "11534336"));
        assertEquals(
                "None", FleetReport.Entry.either("receive_buffer_bytes", "None", "4194304"), "words: the first asked");
    }

    @Test
    void theExitCodeSaysWhatIsKnown() {
        assertEquals(
                FleetCommand.NOTHING_TO_CHANGE,
                FleetCommand.exitCode(FleetReport.of(List.of(served(BROKER_1, List.of())))));
        assertEquals(
                FleetCommand.NOT_KNOWN,
                FleetCommand.exitCode(FleetReport.of(
                        List.of(served(BROKER_1, List.of()), FleetAnswer.failed(BROKER_2, "connection refused")))));
        assertEquals(FleetCommand.SOMETHING_TO_CHANGE, FleetCommand.exitCode(FleetReport.of(fleet())));
    }

    /**
     * A client without a client.id is named by what is known of it, its address, never a guess: at
     * the client's end its local address, at the broker's its remote one, never the broker's own.
     */
    @Test
    void aClientWithoutAClientIdIsNamedByItsAddressAtEitherEnd() {
        InetSocketAddress client = new InetSocketAddress("10.0.0.7", 50009);
        InetSocketAddress broker = new InetSocketAddress("10.0.0.1", 9092);
        for (ConnectionIdentity unnamed : List.of(
                ConnectionIdentity.of(Role.CLIENT, client, broker).withNodeId("1"),
                ConnectionIdentity.of(Role.BROKER, broker, client).withNodeId("1"))) {
            FleetReport report = FleetReport.of(List.of(served(BROKER_1, judged(unnamed, true))));
            assertEquals(
                    Set.of("a client without a client.id at 10.0.0.7:50009"),
                    report.entries(FleetReport.Section.CLIENTS).get(0).who,
                    FleetOutput.text(report));
        }
    }

    @Test
    void anAnswerThatIsNotFindingsIsRefusedWithWhatIsWrong() {
        IllegalArgumentException notJson =
                assertThrows(IllegalArgumentException.class, () -> FleetFinding.parse("<html>"));
        assertTrue(notJson.getMessage().startsWith("the answer is not JSON"), notJson.getMessage());
        IllegalArgumentException notArray =
                assertThrows(IllegalArgumentException.class, () -> FleetFinding.parse("{}"));
        assertEquals("the answer is not a JSON array of findings", notArray.getMessage());
        IllegalArgumentException noRule =
                assertThrows(IllegalArgumentException.class, () -> FleetFinding.parse("[{\"severity\":\"warn\"}]"));
        assertEquals("a finding without \"rule\"", noRule.getMessage());
    }

    @Test
    void nothingToChangeWhenEverySourceAnsweredWithoutFindings() {
        FleetReport report = FleetReport.of(List.of(
                served(BROKER_1, judged(consumer("consumer-auto", 50003, 1), false)), served(BROKER_2, List.of())));
        assertFalse(report.somethingToChange(), FleetOutput.text(report));
        assertTrue(report.everySourceAnswered());
        assertTrue(FleetOutput.text(report).contains("Nothing to change"), FleetOutput.text(report));
    }
}
