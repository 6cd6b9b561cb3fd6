package io.tcpsight.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import eu.rekawek.toxiproxy.model.Toxic;
import eu.rekawek.toxiproxy.model.ToxicDirection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** The container lab proves itself: Toxiproxy sits in every client path and its faults are real to Kafka. */
// runs nothing across the delay line: may run beside the lab classes (HostCpu)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class ContainerLabIT {
    private static ProxiedKafka kafka;

    @BeforeAll
    static void startKafka() {
        kafka = ProxiedKafka.start();
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void consumerFetchLatencyRisesByTheLatencyToxic() throws Exception {
        createTopic("latency", 1);
        double baseline = fetchLatencyMillis("latency");
        kafka.hostProxy().toxics().latency("latency-100ms", ToxicDirection.DOWNSTREAM, 100);
        double delayed;
        try {
            delayed = fetchLatencyMillis("latency");
        } finally {
            kafka.hostProxy().toxics().get("latency-100ms").remove();
        }
        System.out.printf(
                "fetch-latency-avg: %.1f ms without toxic, %.1f ms with a 100 ms latency toxic%n", baseline, delayed);
        assertEquals(100, delayed - baseline, 25, "the toxic adds about 100 ms to every fetch round trip");
    }

    /** fetch.max.wait.ms=0 makes the broker answer at once, so the latency is the round trip. */
    private static double fetchLatencyMillis(String topic) {
        Properties config = consumerConfig("latency-probe");
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "0");
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            long end = System.nanoTime() + 3_000_000_000L;
            while (System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(100));
            }
            return metric(consumer.metrics(), "consumer-fetch-manager-metrics", "fetch-latency-avg");
        }
    }

    @Test
    void connectWorkerRunsAFileSinkWithFourTasksThroughTheProxy() throws Exception {
        createTopic("to-file", 4);
        int records = 2000;
        produce("to-file", records);
        try (ConnectWorker worker = ConnectWorker.start(kafka, Map.of())) {
            worker.put(
                    "/connectors/file-sink/config",
                    Map.of(
                            "connector.class", "org.apache.kafka.connect.file.FileStreamSinkConnector",
                            "tasks.max", "4",
                            "topics", "to-file",
                            "file", "/tmp/sink.txt"));
            JsonNode status = worker.awaitRunning("file-sink", 4, Duration.ofSeconds(90));
            System.out.println("connector status: " + status);
            long start = System.nanoTime();
            int lines = LabAwait.await("every record in the sink file")
                    .atMost(Duration.ofSeconds(120))
                    .every(Duration.ofMillis(500))
                    .explainedBy(() -> sinkFailure(worker))
                    .until(() -> {
                        int count = sinkLines(worker, "cat /tmp/sink.txt 2>/dev/null | wc -l");
                        return count >= records ? count : null;
                    });
            System.out.printf("sink file: %d lines after %d ms%n", lines, (System.nanoTime() - start) / 1_000_000);
            assertEquals(records, lines, "every record reached the sink file");
            assertEquals(records, sinkLines(worker, "sort -u /tmp/sink.txt | wc -l"), "no record lost or duplicated");
        }
    }

    private static int sinkLines(ConnectWorker worker, String countCommand) throws Exception {
        return Integer.parseInt(worker.container()
                .execInContainer("sh", "-c", countCommand)
                .getStdout()
                .trim());
    }

    /** What a timed-out sink wait shows: the connector's status and the worker's last log lines. */
    private static String sinkFailure(ConnectWorker worker) {
        try {
            String logs = worker.container().getLogs();
            return "connector status " + worker.get("/connectors/file-sink/status") + "\nworker log tail:\n"
                    + logs.substring(Math.max(0, logs.length() - 20_000));
        } catch (Exception unavailable) {
            return "worker unavailable: " + unavailable;
        }
    }

    /**
     * Bounded: one fresh-clone run beside a busy host never ended (the producer reconnecting to the
     * proxy's bootstrap port for 18 minutes after the resets were removed), and a hang is an
     * overtime CI with no stack; a failure at the bound names where it waited.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void resetPeerMakesClientsReconnectAndNoRecordIsLost() throws Exception {
        createTopic("resets", 2);
        int records = 3000;
        Properties config = consumerConfig("reset-reader");
        try (KafkaConsumer<String, String> consumer =
                        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
                KafkaProducer<String, String> producer = producer()) {
            consumer.subscribe(List.of("resets"));
            Set<String> seen = new HashSet<>();
            int received = 0;
            for (int i = 0; i < records / 2; i++) {
                producer.send(new ProducerRecord<>("resets", "record-" + i));
            }
            producer.flush();
            received += drain(consumer, seen, 3000);
            double connectionsBefore = metric(consumer.metrics(), "consumer-metrics", "connection-creation-total");

            kafka.hostProxy().toxics().resetPeer("reset", ToxicDirection.DOWNSTREAM, 0);
            // sent on a thread of their own, so the resets end on time whatever a send does: a producer that finds
            // every broker it knows in its reconnect backoff rebootstraps (metadata.recovery.strategy=rebootstrap, the
            // default since Kafka 4.0), and then each send waits up to max.block.ms for the topic's metadata, which
            // the resets hold off. In one fresh clone the sends, on the test's thread, so waited until the test's
            // bound with the resets still in place, the producer reconnecting to its bootstrap address every second;
            // a pause of 2 s after the first send does the same every time (docs/lab.md)
            List<Future<RecordMetadata>> sends;
            ExecutorService sender = Executors.newSingleThreadExecutor();
            try {
                Future<List<Future<RecordMetadata>>> sending = sender.submit(() -> {
                    List<Future<RecordMetadata>> sent = new ArrayList<>();
                    for (int i = records / 2; i < records; i++) {
                        sent.add(producer.send(new ProducerRecord<>("resets", "record-" + i))); // buffered and retried
                    }
                    return sent;
                });
                received += drain(consumer, seen, 3000);
                kafka.hostProxy().toxics().get("reset").remove();
                sends = sending.get(60, TimeUnit.SECONDS);
            } finally {
                sender.shutdownNow();
            }

            awaitAcknowledged(producer, sends, "resets");
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (seen.size() < records && System.nanoTime() < deadline) {
                received += drain(consumer, seen, 1000);
            }
            double connectionsAfter = metric(consumer.metrics(), "consumer-metrics", "connection-creation-total");
            System.out.printf(
                    "reset_peer: consumer connections %.0f -> %.0f, %d distinct of %d records, %d deliveries%n",
                    connectionsBefore, connectionsAfter, seen.size(), records, received);
            assertTrue(connectionsAfter > connectionsBefore, "the consumer reconnected after the resets");
            assertEquals(records, seen.size(), "no record lost");
        }
    }

    /**
     * Each send acknowledged within 60 s of the resets' end (a second or two here), else the failure
     * says what the path looked like then. Twice in fresh clones beside other classes the producer
     * reconnected to the proxy's port every second for minutes after the toxic was removed (an open
     * report in Toxiproxy's tracker describes a proxy refusing connections after a reset_peer toxic):
     * what the proxy holds, whether a new client gets through it and what it logged tell the proxy
     * from the client. The producer is closed within 5 s there, so the failure is the send's, not the
     * test's bound.
     */
    private static void awaitAcknowledged(
            KafkaProducer<String, String> producer, List<Future<RecordMetadata>> sends, String topic) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Future<RecordMetadata> send : sends) {
            try {
                send.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException failure) {
                printPath("after the resets, a send to " + topic, failure, topic);
                producer.close(Duration.ofSeconds(5));
                throw failure;
            }
        }
    }

    private static int drain(KafkaConsumer<String, String> consumer, Set<String> seen, long millis) {
        int count = 0;
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                seen.add(record.value());
                count++;
            }
        }
        return count;
    }

    private static void createTopic(String name, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    private static KafkaProducer<String, String> producer() {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        // One batch in flight per connection. Seen in a CI rehearsal: right after the topic was created, the
        // first batch for to-file-2 got NOT_LEADER_OR_FOLLOWER while the next ones were already in flight;
        // those were refused with OUT_OF_ORDER_SEQUENCE_NUMBER on every retry until the delivery timeout
        // (the broker described the partition with its leader all along). With one in flight the first batch
        // is simply retried; idempotence still keeps every record exactly once.
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    /** Every record acknowledged, or the send's own failure: a record lost here must not surface as a short sink file later. */
    private static void produce(String topic, int records) throws Exception {
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < records; i++) {
                sends.add(producer.send(new ProducerRecord<>(topic, "record-" + i)));
            }
            for (Future<RecordMetadata> send : sends) {
                try {
                    send.get(150, TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException failure) {
                    // Once seen in CI (the batch expired unsent); say what the proxy and the broker looked like.
                    printPath("produce to " + topic, failure, topic);
                    throw failure;
                }
            }
        }
    }

    /**
     * What the path looked like when a send failed: the proxy's toxics, the topic's partitions as a
     * new client through the proxy gets them (a leaderless partition, or no answer), and the proxy's
     * and the broker's log tails. A part that cannot be read is added to the failure, never put in
     * its place.
     */
    private static void printPath(String what, Exception failure, String topic) {
        try {
            System.out.println(what + " failed: " + failure + "\nhost proxy toxics: "
                    + kafka.hostProxy().toxics().getAll().stream()
                            .map(Toxic::getName)
                            .toList()
                    + "\npartitions of " + topic + " as a new client through the proxy gets them: " + describe(topic));
            System.out.println("proxy log tail:\n" + tail(kafka.toxiproxy().getLogs()));
            System.out.println("broker log tail:\n" + tail(kafka.broker().getLogs()));
        } catch (Exception unreadable) {
            failure.addSuppressed(unreadable);
        }
    }

    private static String tail(String logs) {
        return logs.substring(Math.max(0, logs.length() - 10_000));
    }

    /** Each partition's leader and replicas, for a produce that failed: a leaderless partition shows here. */
    private static String describe(String topic) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            return String.valueOf(admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(10, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions());
        } catch (Exception unavailable) {
            return "(not described: " + unavailable + ")";
        }
    }

    private static Properties consumerConfig(String group) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return config;
    }

    private static double metric(Map<MetricName, ? extends Metric> metrics, String group, String name) {
        return metrics.entrySet().stream()
                .filter(entry -> entry.getKey().group().equals(group)
                        && entry.getKey().name().equals(name)
                        && entry.getKey().tags().size() <= 1)
                .map(entry -> ((Number) entry.getValue().metricValue()).doubleValue())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no metric " + group + "/" + name));
    }
}
