package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Is it this host or the path, side by side in one run: a consumer 50 ms from a broker with the
 * agent. First the broker's own device sheds packets (a tbf qdisc with a small limit on its side
 * of the line): the agent's retransmissions finding says local and advises no BBR, and
 * host-egress-drops names the device and the consumer. Then the line itself loses 2% (the delay
 * line's loss), with the qdisc left as the kernel made it: retransmissions says path and advises
 * BBR, and no host-egress-drops appears.
 */
class HostOrPathLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final String TOPIC = "far";
    private static final String CONSUMER = "far-consumer";

    @Test
    void aDropOnThisHostIsLocalAndALossOnTheLineIsThePaths() throws Exception {
        Seen local = consume(Link.rtt(Duration.ofMillis(50)).rateMbit(200), true);
        Seen path = consume(Link.rtt(Duration.ofMillis(50)).rateMbit(200).lossPercent(2), false);
        System.out.printf(
                "behind a tbf on the broker's device: %s%n  %s%non a line losing 2%%: %s%n  host-egress-drops: %s%n",
                local.retransmissions,
                local.egressDrops.map(String::valueOf).orElse("none"),
                path.retransmissions,
                path.egressDrops.map(String::valueOf).orElse("none"));

        assertEquals("local", local.retransmissions.text("lossAt").orElseThrow(), local.retransmissions.toString());
        assertTrue(
                local.retransmissions.remedy().settings().isEmpty(),
                "no BBR for a local drop: " + local.retransmissions);
        FindingView drops = local.egressDrops.orElseThrow(() -> new AssertionError("no host-egress-drops"));
        assertEquals("tslsrv", drops.text("device").orElseThrow());
        assertEquals("tbf", drops.text("qdisc").orElseThrow());
        assertTrue(drops.number("qdiscDrops") > 0, drops.toString());
        assertEquals(CONSUMER, drops.connection().clientId(), "names the connection it hurt");
        assertFalse(drops.severity().equals("info"), drops.toString());

        assertEquals("path", path.retransmissions.text("lossAt").orElseThrow(), path.retransmissions.toString());
        assertTrue(path.egressDrops.isEmpty(), "the line's loss is not this host's: " + path.egressDrops);
    }

    private record Seen(FindingView retransmissions, Optional<FindingView> egressDrops) {}

    /** A 12 MB read from a fresh broker behind this line; the agent's findings once retransmissions shows. */
    private static Seen consume(Link link, boolean shapeBrokerSide) throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder().link(link));
        KafkaBroker broker = KafkaBroker.inLab(lab)
                .agent("interval=1s")
                .overrides(Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"))
                .start();
        LabTopics.create(broker, TOPIC, 1);
        LabTopics.fill(broker, TOPIC, 12_000, 1_000);
        if (shapeBrokerSide) {
            // The broker's side of the line sheds what its 30 KB queue cannot hold at 100 Mbit/s.
            assertEquals(
                    0,
                    lab.execInServer(
                                    "tbf",
                                    List.of(
                                            "tc", "qdisc", "replace", "dev", "tslsrv", "root", "tbf", "rate", "100mbit",
                                            "burst", "32kb", "limit", "30kb"))
                            .awaitExit(Duration.ofSeconds(10)));
        }
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, CONSUMER);
        config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(16 << 20));
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(16 << 20));
        List<FindingView> findings = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(partition));
            FindingView retransmissions = LabAwait.await("the agent's retransmissions finding for the consumer")
                    .atMost(Duration.ofSeconds(40))
                    .until(() -> {
                        if (consumer.poll(Duration.ofMillis(200)).isEmpty()) {
                            consumer.seekToBeginning(List.of(partition)); // read the topic again: keep data flowing
                        }
                        findings.clear();
                        findings.addAll(FindingView.list(broker.agentGet("/findings")));
                        return findings.stream()
                                .filter(f -> f.is("retransmissions")
                                        && CONSUMER.equals(f.connection().clientId()))
                                .findFirst()
                                .orElse(null);
                    });
            Optional<FindingView> egressDrops =
                    findings.stream().filter(f -> f.is("host-egress-drops")).findFirst();
            return new Seen(retransmissions, egressDrops);
        }
    }
}
