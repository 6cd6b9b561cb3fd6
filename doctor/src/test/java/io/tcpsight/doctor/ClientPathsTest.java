package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.Diagnosis;
import io.tcpsight.internal.diagnose.config.BrokerConfigRules;
import io.tcpsight.internal.diagnose.connection.ExpectedRate;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ClientLibrary;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.KernelVersion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A consumer 100 ms from broker 3 with receive.buffer.bytes=65536 (a window clamped at 49152
 * bytes: 3.9 Mbit/s) and Kafka's fetch sizes (1 MiB a response of one partition: 1048576 / (0.1 s +
 * 1048576 / 12.5e6 B/s) = 45.6 Mbit/s), behind a broker with Kafka's socket.send.buffer.bytes=102400
 * (8.2 Mbit/s), on a host with timestamps off. Remedied: the window autotunes to half the 32 MiB
 * tcp_rmem max, the broker's send buffer to half a 5 MiB tcp_wmem max (209.7 Mbit/s), and a fetch
 * carries 11 MiB, 11534336 / (0.1 + 11534336 / 12.5e6) = 90.2 Mbit/s, one poll a whole 50 MiB
 * response of 1024-byte records (51200). Worked out by hand.
 */
class ClientPathsTest {
    private static final TcpsightConfig DEFAULTS = TcpsightConfig.defaults();
    private static final KafkaSettings CONSUMER =
            KafkaSettings.fromClientConfig(Map.of("receive.buffer.bytes", "65536"), ClientKind.CONSUMER);

    private static List<Finding> consumerFlow() {
        KernelFacts kernel = new KernelFacts(KernelVersion.of(6, 18, 0), 33_554_432L, 4_194_304L, 0L, 1L);
        ConnectionFacts facts = ConnectionFacts.builder(HumanReportTest.BROKER_3)
                .established(true)
                .rttMicros(100_000)
                .windowScaling(true)
                .rcvWindowScale(2)
                .receiveBufferBytes(131_072)
                .windowClampBytes(49_152)
                .kafka(CONSUMER)
                .kernel(kernel)
                .build();
        List<Finding> flow = new ArrayList<>(Diagnosis.connection(facts, DEFAULTS));
        BrokerConfigRules.sendBuffer(
                        Map.of("socket.send.buffer.bytes", "102400"), HumanReportTest.BROKER_3, 100_000, DEFAULTS)
                .ifPresent(flow::add);
        flow.addAll(Diagnosis.host(kernel, HumanReportTest.BROKER_3, 100_000, DEFAULTS));
        return flow;
    }

    /** Broker 4, 20 ms away. */
    private static final ConnectionIdentity BROKER_4 = new BrokerPaths.BrokerPath(
                    "4", new InetSocketAddress("10.0.0.4", 9092), null, null)
            .identity(DoctorClient.of("tcpsight-doctor", ClientLibrary.JAVA));

    /**
     * The same consumer 20 ms from broker 4: its window of 49152 bytes moves 49152 / 0.02 s =
     * 2457600 B/s = 19.7 Mbit/s; its fetch, 1048576 / (0.02 + 1048576 / 12.5e6) = 1048576 / 0.10388608
     * = 80.7 Mbit/s, reaches 80% of the target, so no finding names it, and it stands.
     */
    private static List<Finding> consumerConnectionToBroker4() {
        KernelFacts kernel = new KernelFacts(KernelVersion.of(6, 18, 0), 33_554_432L, 4_194_304L, 1L, 1L);
        ConnectionFacts facts = ConnectionFacts.builder(BROKER_4)
                .established(true)
                .rttMicros(20_000)
                .windowScaling(true)
                .rcvWindowScale(2)
                .receiveBufferBytes(131_072)
                .windowClampBytes(49_152)
                .kafka(CONSUMER)
                .kernel(kernel)
                .build();
        return Diagnosis.connection(facts, DEFAULTS);
    }

    /** Broker 4 with socket.send.buffer.bytes=32768: 32768 / 0.02 s = 13.1 Mbit/s, below the consumer's window. */
    private static Finding broker4SendBuffer() {
        return BrokerConfigRules.sendBuffer(Map.of("socket.send.buffer.bytes", "32768"), BROKER_4, 20_000, DEFAULTS)
                .orElseThrow();
    }

    private static List<String> said(List<Finding> annotated) {
        List<String> said = new ArrayList<>();
        for (Finding finding : annotated) {
            said.add(ClientPaths.key(finding.connection()) + " "
                    + finding.rule().id() + " "
                    + finding.evidence(Finding.EXPECTED_AFTER_ALL)
                            .map(item -> item.value().toString())
                            .orElse("-"));
        }
        return said;
    }

    private static String listed(ExpectedRate limits) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        HumanReport.limits(limits, "consumer", 100, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /**
     * Two broker paths in one flow: each path's findings say the rate of that path's limits alone,
     * 90.2 to broker 3 (its fetch finding's remedy), 80.7 to broker 4 (the fetch size no finding names).
     */
    @Test
    void eachBrokerPathSaysItsOwnRate() {
        List<Finding> flow = new ArrayList<>(consumerFlow());
        flow.addAll(consumerConnectionToBroker4());
        flow.add(broker4SendBuffer());
        List<Finding> annotated = ClientPaths.annotate(
                flow, Map.of("node 3", 100_000L, "node 4", 20_000L), ClientRole.CONSUMER, CONSUMER, DEFAULTS);
        assertEquals(
                List.of(
                        "node 3 small-receive-buffer 90.2",
                        "node 3 fetch-size-below-bdp 90.2",
                        "node 3 small-send-buffer 90.2",
                        "node 3 timestamps-disabled -",
                        "node 4 small-receive-buffer 80.7",
                        "node 4 small-send-buffer 80.7"),
                said(annotated));
        String four = listed(ClientPaths.limits(annotated, BROKER_4, 20_000, ClientRole.CONSUMER, CONSUMER, DEFAULTS));
        assertTrue(four.contains("  now: 13.1 Mbit/s"), four);
        assertTrue(four.contains("  1. send buffer: 13.1 Mbit/s now (small-send-buffer)"), four);
        assertTrue(four.contains("  2. receive window: 19.7 Mbit/s now (small-receive-buffer)"), four);
        assertTrue(four.contains("  3. fetch size: 80.7 Mbit/s now\n"), four);
        assertTrue(four.endsWith("  expected after all: 80.7 Mbit/s\n\n"), four);
        assertTrue(listed(ClientPaths.limits(
                        annotated, HumanReportTest.BROKER_3, 100_000, ClientRole.CONSUMER, CONSUMER, DEFAULTS))
                .endsWith("  expected after all: 90.2 Mbit/s\n\n"));
    }

    /**
     * The connection alone moves 19.7 Mbit/s now; the broker's send buffer of 13.1 binds first once
     * it joins. Its remedy (tcp_wmem max sized for two BDPs) lifts it past the target, so the rate after
     * all stays 80.7. A broker whose send buffer can be lifted only to 60 Mbit/s (a held host max,
     * below the connection's own 80.7) lowers the connection's finding to 60.0 once it joins.
     */
    @Test
    void aBrokersLimitJoiningThePathChangesTheConnectionsRate() {
        List<Finding> alone = ClientPaths.annotate(
                consumerConnectionToBroker4(), Map.of("node 4", 20_000L), ClientRole.CONSUMER, CONSUMER, DEFAULTS);
        assertEquals(List.of("node 4 small-receive-buffer 80.7"), said(alone));
        assertTrue(listed(ClientPaths.limits(alone, BROKER_4, 20_000, ClientRole.CONSUMER, CONSUMER, DEFAULTS))
                .contains("  now: 19.7 Mbit/s"));

        List<Finding> joined = new ArrayList<>(consumerConnectionToBroker4());
        joined.add(broker4SendBuffer());
        joined = ClientPaths.annotate(joined, Map.of("node 4", 20_000L), ClientRole.CONSUMER, CONSUMER, DEFAULTS);
        assertEquals(List.of("node 4 small-receive-buffer 80.7", "node 4 small-send-buffer 80.7"), said(joined));
        assertTrue(listed(ClientPaths.limits(joined, BROKER_4, 20_000, ClientRole.CONSUMER, CONSUMER, DEFAULTS))
                .contains("  now: 13.1 Mbit/s"));

        Finding held = broker4SendBuffer();
        held = held.withLimit(new Limit(Limit.SEND_BUFFER, held.limit().get().nowBytesPerSecond(), 60e6 / 8));
        List<Finding> heldFlow = new ArrayList<>(consumerConnectionToBroker4());
        heldFlow.add(held);
        assertEquals(
                List.of("node 4 small-receive-buffer 60.0", "node 4 small-send-buffer 60.0"),
                said(ClientPaths.annotate(
                        heldFlow, Map.of("node 4", 20_000L), ClientRole.CONSUMER, CONSUMER, DEFAULTS)));
    }

    @Test
    void everyLimitOnThePathSaysTheRateAfterAllOfTheirRemediesAndTheReportListsThemInOrder() throws IOException {
        List<Finding> annotated = ClientPaths.annotate(
                consumerFlow(), Map.of("node 3", 100_000L), ClientRole.CONSUMER, CONSUMER, DEFAULTS);
        List<String> said = new ArrayList<>();
        for (Finding finding : annotated) {
            said.add(finding.rule().id() + " "
                    + finding.evidence(Finding.EXPECTED_AFTER_ALL)
                            .map(item -> item.value().toString())
                            .orElse("-"));
        }
        // the connection's own rate (the window alone, 90.2 after its fetch) is said again with the broker's send
        // buffer
        assertEquals(
                List.of(
                        "small-receive-buffer 90.2",
                        "fetch-size-below-bdp 90.2",
                        "small-send-buffer 90.2",
                        "timestamps-disabled -"),
                said);
        ExpectedRate limits = ClientPaths.limits(
                annotated, HumanReportTest.BROKER_3, 100_000, ClientRole.CONSUMER, CONSUMER, DEFAULTS);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        HumanReport.limits(limits, "consumer", 100, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(
                String.join(
                        "\n",
                        "== limits a consumer meets on the path to the slowest broker, in the order they bind",
                        "  now: 3.9 Mbit/s (tcpsight.target.throughput.mbit=100)",
                        "  1. receive window: 3.9 Mbit/s now (small-receive-buffer)",
                        "     fix:   receive.buffer.bytes=-1 (client)",
                        "     then:  8.2 Mbit/s",
                        "  2. send buffer: 8.2 Mbit/s now (small-send-buffer)",
                        "     fix:   socket.send.buffer.bytes=-1 (broker), net.ipv4.tcp_wmem=4096 16384 5242880 (broker-host sysctl)",
                        "     then:  45.6 Mbit/s",
                        "  3. fetch size: 45.6 Mbit/s now (fetch-size-below-bdp)",
                        "     fix:   max.partition.fetch.bytes=11534336 (client), max.poll.records=51200 (client)",
                        "     then:  90.2 Mbit/s",
                        "  expected after all: 90.2 Mbit/s",
                        "",
                        ""),
                text);
        // docs/doctor.md shows this very list: the page says what the code prints
        String page = Files.readString(Path.of("..", "docs", "doctor.md"));
        String shown = text.strip().lines().map(line -> "   " + line).collect(Collectors.joining("\n"));
        assertTrue(page.contains(shown), "docs/doctor.md should show, as the doctor prints it:\n" + shown);
    }

    /** A fetch size that reaches 80% of the target is no finding, yet it holds the flow once the window is lifted. */
    @Test
    void aFetchSizeNoFindingNamesStandsInTheListWithoutAFix() {
        KafkaSettings sixteenPartitions = CONSUMER.withPartitionsPerBroker(16);
        List<Finding> flow = new ArrayList<>();
        for (Finding finding : consumerFlow()) {
            if (!finding.rule().id().equals("fetch-size-below-bdp")) {
                flow.add(finding);
            }
        }
        List<Finding> annotated = ClientPaths.annotate(
                flow, Map.of("node 3", 100_000L), ClientRole.CONSUMER, sixteenPartitions, DEFAULTS);
        // 16 MiB a response: 16777216 / (0.1 + 16777216 / 12.5e6) = 93.1 Mbit/s
        assertEquals(
                93.1,
                annotated.get(0).evidence(Finding.EXPECTED_AFTER_ALL).get().value());
        ExpectedRate limits = ClientPaths.limits(
                annotated, HumanReportTest.BROKER_3, 100_000, ClientRole.CONSUMER, sixteenPartitions, DEFAULTS);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        HumanReport.limits(limits, "consumer", 100, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(
                text.contains("  3. fetch size: 93.1 Mbit/s now\n"
                        + "     fix:   none named: no finding on this path names a change for it\n"),
                text);
        assertTrue(text.endsWith("  expected after all: 93.1 Mbit/s\n\n"), text);
        assertFalse(text.contains("Infinity"), text);
    }
}
