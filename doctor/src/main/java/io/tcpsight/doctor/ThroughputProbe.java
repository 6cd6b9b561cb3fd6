package io.tcpsight.doctor;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Consume throughput of one topic read from its beginning, once per client variant, one after
 * the other in the same run so they share the path's conditions: the user's config with
 * receive.buffer.bytes=65536, with -1, and with tcpsight's recommended fetch sizes. Read-only:
 * no group, no commits.
 */
final class ThroughputProbe {
    /** One way to configure the consumer. */
    record Variant(String label, Map<String, String> overrides) {}

    /** What one variant read. */
    record Result(Variant variant, long bytes, long records, Duration elapsed, boolean reachedEnd, Duration after) {
        /** Measured from the variant's start. */
        Result(Variant variant, long bytes, long records, Duration elapsed, boolean reachedEnd) {
            this(variant, bytes, records, elapsed, reachedEnd, Duration.ZERO);
        }

        double mbitPerSecond() {
            double seconds = elapsed.toNanos() / 1e9;
            return seconds <= 0 ? 0 : bytes * 8 / seconds / 1e6;
        }

        String describe() {
            return String.format(
                    Locale.ROOT,
                    "%-58s %8.1f Mbit/s  (%.1f MB in %.1f s%s%s)",
                    variant.label(),
                    mbitPerSecond(),
                    bytes / 1e6,
                    elapsed.toNanos() / 1e9,
                    after.isZero() ? "" : String.format(Locale.ROOT, " after its first %.1f s", after.toNanos() / 1e9),
                    reachedEnd ? ", whole topic" : "");
        }
    }

    private ThroughputProbe() {}

    static List<Variant> variants(long fetchMaxBytes, long maxPartitionFetchBytes) {
        return List.of(
                new Variant("receive.buffer.bytes=65536", Map.of("receive.buffer.bytes", "65536")),
                new Variant("receive.buffer.bytes=-1", Map.of("receive.buffer.bytes", "-1")),
                new Variant(
                        "tcpsight recommendation (-1, fetch " + fetchMaxBytes / (1 << 20) + " MiB, "
                                + maxPartitionFetchBytes / (1 << 20) + " MiB/partition)",
                        Map.of(
                                "receive.buffer.bytes",
                                "-1",
                                "fetch.max.bytes",
                                Long.toString(fetchMaxBytes),
                                "max.partition.fetch.bytes",
                                Long.toString(maxPartitionFetchBytes))));
    }

    static List<Result> run(
            Properties clientConfig, String topic, List<Variant> variants, Duration each, PrintStream progress) {
        List<Result> results = new ArrayList<>();
        for (Variant variant : variants) {
            results.add(runOne(clientConfig, topic, variant, each, progress));
        }
        return results;
    }

    private static Result runOne(
            Properties clientConfig, String topic, Variant variant, Duration limit, PrintStream progress) {
        Properties config = new Properties();
        config.putAll(clientConfig);
        config.remove(ConsumerConfig.GROUP_ID_CONFIG);
        config.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        config.putAll(variant.overrides());
        config.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, "tcpsight-doctor-probe");
        config.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.setProperty(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.setProperty(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            List<PartitionInfo> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30));
            if (partitions == null || partitions.isEmpty()) {
                throw new IllegalStateException("topic " + topic + " does not exist or has no partitions");
            }
            List<TopicPartition> assigned = new ArrayList<>();
            for (PartitionInfo partition : partitions) {
                assigned.add(new TopicPartition(topic, partition.partition()));
            }
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(assigned, Duration.ofSeconds(30)));
            long start = System.nanoTime();
            long deadline = start + limit.toNanos();
            long nextProgress = start + 1_000_000_000L;
            long bytes = 0;
            long records = 0;
            boolean reachedEnd = false;
            while (System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> record : batch) {
                    bytes += Math.max(0, record.serializedKeySize()) + Math.max(0, record.serializedValueSize());
                    records++;
                }
                if (atEnd(consumer, end)) {
                    reachedEnd = true;
                    break;
                }
                long now = System.nanoTime();
                if (now >= nextProgress) {
                    nextProgress += 1_000_000_000L;
                    Result sofar = new Result(variant, bytes, records, Duration.ofNanos(now - start), false);
                    progress.printf(Locale.ROOT, "\r  %s  %.0f s", sofar.describe(), (now - start) / 1e9);
                    progress.flush();
                }
            }
            Result result =
                    new Result(variant, bytes, records, Duration.ofNanos(System.nanoTime() - start), reachedEnd);
            progress.print("\r  " + result.describe() + "          \n");
            progress.flush();
            return result;
        }
    }

    private static boolean atEnd(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
            if (consumer.position(partition.getKey()) < partition.getValue()) {
                return false;
            }
        }
        return true;
    }
}
