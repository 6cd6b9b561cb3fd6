package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabConnectWorker;
import io.tcpsight.lab.Link;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Connect plugin in a real distributed worker, its brokers across the kernel delay line. */
class ConnectPluginLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();
    private static final long INTERVAL_MS = 2000;
    private static final String EXTENSION = "io.tcpsight.connect.TcpsightRestExtension";

    @Test
    void smallConsumerBuffer100MsAwayIsReportedForTheConnectorsConsumersWithinOneInterval() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder().link(Link.rtt(Duration.ofMillis(100)).rateMbit(200)).clientInNamespace());
        KafkaBroker broker = KafkaBroker.start(lab, Map.of());
        createTopic(broker, "far", 2);
        produce(broker, "far", 100);
        try (LabConnectWorker worker = LabConnectWorker.start(lab, broker, Map.of("rest.extension.classes", EXTENSION,
                "consumer.receive.buffer.bytes", "65536", "tcpsight.sample.interval.ms", Long.toString(INTERVAL_MS)))) {
            Path sink = worker.directory().resolve("far.txt");
            worker.put("/connectors/far-sink/config", Map.of("connector.class", "org.apache.kafka.connect.file.FileStreamSinkConnector",
                    "tasks.max", "2", "topics", "far", "file", sink.toString()));
            long running = awaitRunning(worker, "far-sink", 2);
            JsonNode finding = null;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (finding == null && System.nanoTime() < deadline) {
                for (JsonNode candidate : worker.get("/tcpsight/findings")) {
                    if (candidate.path("rule").asText().equals("small-receive-buffer")
                            && candidate.path("connection").path("clientId").asText().startsWith("connector-consumer-far-sink-")) {
                        finding = candidate;
                    }
                }
                if (finding == null) {
                    Thread.sleep(200);
                }
            }
            long afterRunningMs = (System.nanoTime() - running) / 1_000_000;
            assertTrue(finding != null, "no small-receive-buffer for the connector's consumers in " + worker.get("/tcpsight/findings")
                    + "\nconnections: " + worker.get("/tcpsight/connections") + "\nworker output:\n" + worker.process().output());
            System.out.println("connector consumer finding " + afterRunningMs + " ms after its tasks were RUNNING (interval "
                    + INTERVAL_MS + " ms): " + finding);
            assertEquals("far-sink", finding.path("connection").path("connector").asText());
            assertEquals(100, finding.path("evidence").path("rtt").path("value").asDouble(), 5);
            List<String> keys = new ArrayList<>();
            finding.path("remedy").path("settings").forEach(setting -> keys.add(setting.path("key").asText() + "="
                    + setting.path("value").asText()));
            assertTrue(keys.contains("consumer.receive.buffer.bytes=-1") && keys.contains("consumer.override.receive.buffer.bytes=-1"),
                    keys.toString());
            // the consumer connects after RUNNING; one interval (with its jitter) plus the connect itself
            assertTrue(afterRunningMs < 2 * INTERVAL_MS + 3000, "finding came " + afterRunningMs + " ms after RUNNING");
            String log = worker.process().output();
            assertTrue(log.lines().anyMatch(line -> line.contains("small-receive-buffer") && line.contains("connector-consumer-far-sink-")),
                    "the worker log names the finding and the consumer:\n" + log);
            awaitLines(sink, 100);
        }
    }

    @Test
    void theSameWorkerWithBrokersOnAZeroMsLineShowsNoWarning() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder().link(Link.rtt(Duration.ZERO).rateMbit(200)).clientInNamespace());
        KafkaBroker broker = KafkaBroker.start(lab, Map.of());
        createTopic(broker, "near", 2);
        produce(broker, "near", 100);
        try (LabConnectWorker worker = LabConnectWorker.start(lab, broker, Map.of("rest.extension.classes", EXTENSION,
                "consumer.receive.buffer.bytes", "65536", "tcpsight.sample.interval.ms", Long.toString(INTERVAL_MS)))) {
            Path sink = worker.directory().resolve("near.txt");
            worker.put("/connectors/near-sink/config", Map.of("connector.class", "org.apache.kafka.connect.file.FileStreamSinkConnector",
                    "tasks.max", "2", "topics", "near", "file", sink.toString()));
            awaitRunning(worker, "near-sink", 2);
            awaitLines(sink, 100);
            Thread.sleep(3 * INTERVAL_MS);
            JsonNode connections = worker.get("/tcpsight/connections?top=100");
            Set<String> owners = new HashSet<>();
            connections.forEach(connection -> owners.add(connection.path("connection").path("clientId").asText()));
            System.out.println("near worker connections by owner: " + owners);
            assertTrue(owners.stream().anyMatch(owner -> owner.startsWith("connector-consumer-near-sink-")),
                    "the plugin sees and names the connector's consumers: " + connections);
            JsonNode findings = worker.get("/tcpsight/findings");
            List<String> warnings = new ArrayList<>();
            findings.forEach(finding -> {
                if (!finding.path("severity").asText().equals("info")) {
                    warnings.add(finding.toString());
                }
            });
            assertTrue(warnings.isEmpty(), "no warn on a 0 ms line: " + warnings);
        }
    }

    static long awaitRunning(LabConnectWorker worker, String connector, int tasks) throws Exception {
        long deadline = System.nanoTime() + 180_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (worker.runningTasks(connector) == tasks) {
                return System.nanoTime();
            }
            Thread.sleep(100);
        }
        throw new AssertionError(connector + " did not reach " + tasks + " RUNNING tasks: " + worker.get("/connectors/" + connector + "/status"));
    }

    static List<String> awaitLines(Path file, int lines) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        List<String> read = List.of();
        while (System.nanoTime() < deadline) {
            read = Files.exists(file) ? Files.readAllLines(file) : List.of();
            if (read.size() >= lines) {
                break;
            }
            Thread.sleep(200);
        }
        assertEquals(lines, read.size(), "records at the sink " + file);
        assertEquals(lines, new HashSet<>(read).size(), "no record duplicated at the sink");
        assertFalse(read.isEmpty());
        return read;
    }

    static void createTopic(KafkaBroker broker, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
    }

    static void produce(KafkaBroker broker, String topic, int records) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers(),
                "acks", "all"), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, topic + "-record-" + i));
            }
        }
    }
}
