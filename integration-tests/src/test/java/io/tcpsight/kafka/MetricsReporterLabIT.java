package io.tcpsight.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.ReporterJmx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A plain consumer with the reporter, against a real broker across the kernel delay line: its
 * finding within one interval, and none on a 0 ms line. Which sockets each reporter judges is
 * {@link ReporterOwnSocketsLabIT}'s.
 */
// Takes the host whole (HostCpu): beside the lab lane's first classes starting, its idle line woke 3.4 ms late
// against the 3 ms a quoted RTT allows (docs/lab.md). The reporter's defect it once met beside another cluster on
// the same port is mended (a path is its cluster's by address)
@ResourceLock(HostCpu.LOCK)
class MetricsReporterLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long INTERVAL_MS = 2000;

    @Test
    void a64KibConsumer100MsAwayRaisesSmallReceiveBufferWithinOneInterval() throws Exception {
        KafkaBroker broker =
                LAB.kafkaBrokerBehind(Link.rtt(Duration.ofMillis(100)).rateMbit(200));
        LAB.latest().takeIdleLine();
        List<JsonNode> findings = run(broker, "lab-consumer-far", true);
        JsonNode finding = findings.stream()
                .filter(f -> f.path("rule").asText().equals("small-receive-buffer"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no small-receive-buffer in " + findings));
        System.out.println("finding: " + finding);
        assertEquals(
                "lab-consumer-far", finding.path("connection").path("clientId").asText());
        assertTrue(finding.path("connection")
                .path("remote")
                .asText()
                .startsWith(broker.bootstrapServers().split(":")[0]));
        LAB.latest()
                .idleLine()
                .assertQuoted(finding.path("evidence").path("rtt").path("value").asDouble(), finding.toString());
        JsonNode setting = finding.path("remedy").path("settings").get(0);
        assertEquals("receive.buffer.bytes", setting.path("key").asText());
        assertEquals("-1", setting.path("value").asText());
    }

    @Test
    void theSameConsumerOnAZeroMsLineRaisesNothing() throws Exception {
        KafkaBroker broker = LAB.kafkaBrokerBehind(Link.rtt(Duration.ZERO).rateMbit(200));
        List<JsonNode> findings = run(broker, "lab-consumer-near", false);
        assertTrue(findings.isEmpty(), findings.toString());
    }

    /**
     * Polls with the reporter for up to three intervals after the first connection exists;
     * when a finding is expected, returns as soon as one appears and checks it came within one
     * interval (plus jitter and the round's own time).
     */
    private static List<JsonNode> run(KafkaBroker broker, String clientId, boolean expectFinding) throws Exception {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, "65536");
        config.put(ConsumerConfig.METRIC_REPORTER_CLASSES_CONFIG, TcpsightMetricsReporter.class.getName());
        config.put("tcpsight.sample.interval.ms", Long.toString(INTERVAL_MS));
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic("reporter-lab", 1, (short) 1)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
            }
            consumer.assign(List.of(new TopicPartition("reporter-lab", 0)));
            consumer.listTopics(Duration.ofSeconds(30)); // connected from here on
            long connected = System.nanoTime();
            long deadline = connected + 3 * INTERVAL_MS * 1_000_000L;
            List<JsonNode> findings = new ArrayList<>();
            while (System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100));
                findings.clear();
                for (String json : ReporterJmx.findings(clientId)) {
                    JsonNode finding = JSON.readTree(json);
                    if (!finding.path("severity").asText().equals("info")) {
                        findings.add(finding);
                    }
                }
                if (expectFinding && !findings.isEmpty()) {
                    long millis = (System.nanoTime() - connected) / 1_000_000;
                    System.out.println(clientId + ": first finding " + millis + " ms after connecting (interval "
                            + INTERVAL_MS + " ms)");
                    assertTrue(millis <= INTERVAL_MS * 1.1 + 1000, "found after " + millis + " ms");
                    return findings;
                }
            }
            return findings;
        }
    }
}
