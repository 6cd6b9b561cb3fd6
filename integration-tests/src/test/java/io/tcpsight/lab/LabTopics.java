package io.tcpsight.lab;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Topics for lab tests: created on a lab broker and filled across its line. */
public final class LabTopics {
    private LabTopics() {}

    /** The admin user's settings for this broker: its address, and its SASL login where it has one. */
    private static Map<String, Object> adminClient(KafkaBroker broker) {
        Map<String, Object> config = new HashMap<>(broker.adminSecurity());
        config.put("bootstrap.servers", broker.bootstrapServers());
        return config;
    }

    /**
     * A test's setup producer across the line, every record acknowledged (acks=all), with one
     * request in flight. On a topic just created a broker once appended a partition's later batch
     * first (its sequence ended at 999, at offsets 0-329) and refused the first (sequence 0) as out of
     * order until it expired, 670 records lost (docs/lab.md): as when a first request is refused while
     * the next is in flight and the broker takes the next as a new producer's first. In order, no
     * batch overtakes another.
     */
    public static Map<String, Object> setupProducer(KafkaBroker broker) {
        Map<String, Object> config = adminClient(broker);
        config.put("acks", "all");
        config.put("max.in.flight.requests.per.connection", "1");
        return config;
    }

    public static void create(KafkaBroker broker, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(adminClient(broker))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    /**
     * Records of recordBytes each, numbered so that every one is distinct at a sink, uncompressed,
     * dealt round-robin over the topic's partitions so that each holds the same share whatever the
     * producer's pace (its sticky partitioner would not promise that). The producer's send buffer
     * autotunes, so filling across a long line is not window-bound. It logs in as the broker's
     * admin user where the broker has SASL.
     */
    public static void fill(KafkaBroker broker, String topic, int records, int recordBytes) {
        fill(adminClient(broker), topic, records, recordBytes, 256L << 20);
    }

    /**
     * The same records, written by a producer on the broker's own side of the line (a JVM in the
     * server namespace): a topic a test reads across the line is its setup, not its subject, and
     * crossing the line twice only costs the suite time (400 MB take 17 s at 200 Mbit/s).
     */
    public static void fillBesideBroker(KernelLab lab, KafkaBroker broker, String topic, int records, int recordBytes)
            throws Exception {
        List<String> args = new ArrayList<>(List.of(topic, Integer.toString(records), Integer.toString(recordBytes)));
        adminClient(broker).forEach((key, value) -> args.add(key + "=" + value));
        LabProcess filler = lab.javaInServer("fill-" + topic, TopicFill.class, args.toArray(new String[0]));
        int exit = filler.awaitExit(Duration.ofMinutes(3));
        if (exit != 0) {
            throw new AssertionError(
                    "filling " + topic + " beside the broker failed (exit " + exit + "):\n" + filler.output());
        }
    }

    /** The fill's producer, given the client config to write with and the records it may buffer. */
    static void fill(Map<String, Object> clientConfig, String topic, int records, int recordBytes, long bufferMemory) {
        String payload = "x".repeat(recordBytes - 12);
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.putAll(Map.of(
                "acks",
                "1",
                "linger.ms",
                "20",
                "batch.size",
                "1048576",
                "max.request.size",
                "4194304",
                "compression.type",
                "none",
                "send.buffer.bytes",
                "-1",
                "buffer.memory",
                Long.toString(bufferMemory)));
        DeliveryCheck delivered = new DeliveryCheck("the fill of " + topic);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            int partitions = producer.partitionsFor(topic).size();
            for (int i = 0; i < records; i++) {
                producer.send(
                        new ProducerRecord<>(topic, i % partitions, null, String.format("%011d", i) + payload),
                        delivered);
            }
        }
        delivered.assertAllDelivered();
    }

    /** {@code TOPIC RECORDS RECORD_BYTES [key=value ...]}: {@link #fill} in a JVM of its own. */
    public static final class TopicFill {
        private TopicFill() {}

        public static void main(String[] args) {
            Map<String, Object> config = new HashMap<>();
            for (int i = 3; i < args.length; i++) {
                String[] setting = args[i].split("=", 2);
                config.put(setting[0], setting[1]);
            }
            // the lab's small JVMs have 256 MiB of heap: a buffer of that size, full while the broker
            // writes its log, ran out of it once
            fill(config, args[0], Integer.parseInt(args[1]), Integer.parseInt(args[2]), 64L << 20);
            System.out.println("filled " + args[0]);
        }
    }

    /** An admin client of this broker, logged in as its admin where it has SASL. */
    public static Admin admin(KafkaBroker broker) {
        return Admin.create(adminClient(broker));
    }

    /** The sum of the topic's end offsets (0 while it does not exist): its records, none compacted or aborted. */
    public static long endOffsets(KafkaBroker broker, String topic) throws Exception {
        try (Admin admin = admin(broker)) {
            return endOffsets(admin, topic);
        }
    }

    /** The same through an admin client the caller keeps, for a caller that asks often. */
    public static long endOffsets(Admin admin, String topic) throws Exception {
        if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
            return 0;
        }
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(topic)
                .partitions()
                .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
        long total = 0;
        for (var offset :
                admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values()) {
            total += offset.offset();
        }
        return total;
    }

    /** The bytes the topic's partitions hold in the broker's log directories (record batches as stored). */
    public static long logBytes(KafkaBroker broker, String topic) throws Exception {
        try (Admin admin = admin(broker)) {
            return logBytes(
                    admin,
                    topic,
                    admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream()
                            .map(node -> node.id())
                            .collect(Collectors.toList()));
        }
    }

    /** The same on these nodes only (a leader's copy, or a follower's). */
    public static long logBytes(Admin admin, String topic, Collection<Integer> nodes) throws Exception {
        long total = 0;
        for (var dirs : admin.describeLogDirs(nodes)
                .allDescriptions()
                .get(30, TimeUnit.SECONDS)
                .values()) {
            for (var dir : dirs.values()) {
                for (var replica : dir.replicaInfos().entrySet()) {
                    if (replica.getKey().topic().equals(topic)) {
                        total += replica.getValue().size();
                    }
                }
            }
        }
        return total;
    }

    /**
     * How many distinct records the topic holds, told by the first prefixLength characters of each
     * value (the number {@link #fill} writes): reads the topic to its end.
     */
    public static long distinctRecordPrefixes(KafkaBroker broker, String topic, int prefixLength) throws Exception {
        long end = endOffsets(broker, topic);
        Map<String, Object> config = adminClient(broker);
        config.put("group.id", "tcpsight-lab-count-" + System.nanoTime());
        config.put("auto.offset.reset", "earliest");
        config.put("enable.auto.commit", "false");
        config.put("max.poll.records", "10000");
        Set<String> seen = new HashSet<>();
        long read = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (read < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    seen.add(new String(record.value(), 0, prefixLength, StandardCharsets.US_ASCII));
                    read++;
                }
            }
        }
        return seen.size();
    }
}
