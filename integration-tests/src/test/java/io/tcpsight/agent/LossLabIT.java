package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.ConnectionView;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabRounds;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The inter-data-center incident replayed: 30 ms, 200 Mbit/s, 1% random loss each way, the
 * broker's namespace on CUBIC. A consumer reads from a broker as it is, then from one whose agent
 * sets BBR on its accepted sockets ({@code congestion=bbr}); side by side in one run. The agent's
 * retransmissions finding for the first must name CUBIC, the rate its loss allows, and BBR.
 *
 * <p>The minute-long steady flow runs first: the suite's first Kafka JVMs start while the lab's
 * class archives are still being written, and the two brokers of the short runs after it then map them.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LossLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    /**
     * Two of the agent's 5 s rounds at least: a collapsed CUBIC sends about 360 segments a second,
     * and the rule judges loss over at least 1000 (tcpsight.rule.min.segments).
     */
    private static final Duration MEASURED = Duration.ofSeconds(12);

    /** 10 kB each: 300 MB, more than BBR can read in the measured time (81 MB in one run). */
    private static final int RECORDS = 30_000;

    /**
     * 80 MB for the broker on CUBIC, which read 5 MB in the measured time: a CUBIC run short of data
     * reads less, so it cannot pass the 5x for BBR (that would take BBR beyond 260 Mbit/s on a
     * 200 Mbit/s line). The fill beside the broker took 13 s for 300 MB.
     */
    private static final int CUBIC_RECORDS = 8_000;

    /**
     * 150 MB for the minute-long steady flow, which read 50 MB (0.7 % loss at 24 ms holds CUBIC near
     * 7 Mbit/s): a flow that ran dry would leave rounds idle, and fewer than eight busy rounds fail.
     */
    private static final int STEADY_RECORDS = 15_000;

    @Test
    @Order(2)
    void bbrOnTheBrokerKeepsALossyPathFastWhereCubicCollapsesAndTheFindingSaysSo() throws Exception {
        Run cubic = run(cubicLab(), "interval=5s", "cubic-consumer", CUBIC_RECORDS);
        Run bbr = run(cubicLab(), "interval=5s,congestion=bbr", "bbr-consumer", RECORDS);
        double ratio = bbr.mbit / cubic.mbit;
        System.out.printf(
                "loss at 30 ms, 200 Mbit/s, 1%% each way: broker on cubic %.1f Mbit/s, with the agent's congestion=bbr"
                        + " %.1f Mbit/s, %.1fx%ncubic finding: %s%nbbr finding: %s%n",
                cubic.mbit, bbr.mbit, ratio, cubic.finding, bbr.finding);
        assertTrue(ratio >= 5, "BBR " + bbr.mbit + " Mbit/s against CUBIC " + cubic.mbit);
        FindingView finding = cubic.finding;
        assertTrue(finding != null, "no retransmissions finding for the consumer on CUBIC");
        assertEquals("cubic", finding.text("congestionControl").orElse(null), finding.toString());
        assertTrue(finding.number("lossLimitedRate") < 100, finding.toString());
        assertEquals("critical", finding.severity(), finding.toString());
        assertEquals(
                "bbr",
                finding.setting("sysctl", "net.ipv4.tcp_congestion_control").orElse(null));
        assertEquals("bbr", finding.setting("tcpsight", "tcpsight.congestion").orElse(null));
    }

    /**
     * A finding on a steady flow holds while the flow does: alerts page on it. A consumer reads for a
     * minute across 24 ms with 0.7 % loss each way, the broker on CUBIC, the agent at a 5 s interval;
     * every round in which the agent's connection to the consumer sent enough to be judged
     * (tcpsight.rule.min.segments) must carry the retransmissions finding for it, and there must be
     * at least eight such rounds.
     */
    @Test
    @Order(1)
    void aSteadyLossyFlowKeepsItsFindingInEveryBusyRound() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(24)).rateMbit(200).lossPercent(0.7))
                .serverSysctl("net.ipv4.tcp_congestion_control", "cubic"));
        String clientId = "steady-lossy-consumer";
        List<String> rounds = new ArrayList<>();
        int busy = 0;
        List<String> missed = new ArrayList<>();
        try (KafkaBroker broker = KafkaBroker.inLab(lab)
                .agent("interval=5s")
                .overrides(Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"))
                .start()) {
            LabTopics.create(broker, "lossy", 1);
            LabTopics.fillBesideBroker(lab, broker, "lossy", STEADY_RECORDS, 10_000);
            try (KafkaConsumer<byte[], byte[]> consumer = consumer(broker, clientId)) {
                consumer.subscribe(List.of("lossy"));
                int lastRound = LabRounds.count(broker.agentGet("/metrics"));
                long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (System.nanoTime() < end) {
                    consumer.poll(Duration.ofMillis(100));
                    int round = LabRounds.count(broker.agentGet("/metrics"));
                    if (round == lastRound) {
                        continue;
                    }
                    lastRound = round;
                    ConnectionView.Interval interval = null;
                    for (ConnectionView connection : ConnectionView.list(broker.agentGet("/connections?top=50"))) {
                        // the fetch connection, not the group coordinator's: the busiest of the consumer's
                        if (clientId.equals(connection.clientId())
                                && connection.interval() != null
                                && (interval == null
                                        || connection.interval().sendRateBytesPerSecond()
                                                > interval.sendRateBytesPerSecond())) {
                            interval = connection.interval();
                        }
                    }
                    String finding = "none";
                    for (FindingView candidate : FindingView.list(broker.agentGet("/findings"))) {
                        if (candidate.is("retransmissions")
                                && clientId.equals(candidate.connection().clientId())) {
                            finding = candidate.severity();
                        }
                    }
                    double segments =
                            interval == null ? 0 : interval.sendRateBytesPerSecond() * interval.seconds() / 1448;
                    String line = String.format(
                            "round %d: %.0f segments sent, retransmitted %.4f, finding %s",
                            round, segments, interval == null ? 0 : interval.retransmitRatio(), finding);
                    rounds.add(line);
                    if (segments >= 1000) {
                        busy++;
                        if (finding.equals("none")) {
                            missed.add(line);
                        }
                    }
                }
            }
        }
        String story = String.join("\n", rounds);
        System.out.println("a steady lossy flow, round by round:\n" + story);
        assertTrue(busy >= 8, "busy rounds judged: " + busy + "\n" + story);
        assertTrue(missed.isEmpty(), "busy rounds without the finding: " + missed + "\n" + story);
    }

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaBroker broker, String clientId) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, clientId);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, "-1");
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** A fresh lab (a broker's data lives with its namespace) with the broker's namespace on CUBIC. */
    private static KernelLab cubicLab() throws Exception {
        return LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(30)).rateMbit(200).lossPercent(1))
                .serverSysctl("net.ipv4.tcp_congestion_control", "cubic"));
    }

    /** What one consumer got from one broker: its rate over the measured time and the agent's finding about it. */
    private record Run(double mbit, FindingView finding) {}

    private static Run run(KernelLab lab, String agentArguments, String clientId, int records) throws Exception {
        try (KafkaBroker broker = KafkaBroker.inLab(lab)
                .agent(agentArguments)
                .overrides(Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"))
                .start()) {
            LabTopics.create(broker, "lossy", 1);
            LabTopics.fillBesideBroker(lab, broker, "lossy", records, 10_000);
            List<FindingView> seen = new ArrayList<>();
            long bytes = 0;
            try (KafkaConsumer<byte[], byte[]> consumer = consumer(broker, clientId)) {
                consumer.subscribe(List.of("lossy"));
                long start = 0;
                long nextLook = 0;
                while (start == 0 || System.nanoTime() - start < MEASURED.toNanos()) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                        if (start == 0) {
                            start = System.nanoTime(); // from the first record: the group join is not the path
                        }
                        bytes += record.value().length;
                    }
                    if (System.nanoTime() >= nextLook) {
                        nextLook = System.nanoTime() + 1_000_000_000L;
                        for (FindingView finding : FindingView.list(broker.agentGet("/findings"))) {
                            if (finding.is("retransmissions")
                                    && clientId.equals(finding.connection().clientId())) {
                                seen.add(finding);
                            }
                        }
                    }
                }
                double mbit = bytes * 8 / 1e6 / (MEASURED.toNanos() / 1e9);
                return new Run(mbit, seen.isEmpty() ? null : seen.get(seen.size() - 1));
            }
        }
    }
}
