package io.tcpsight.doctor;

import io.tcpsight.internal.tuning.ProducerSizing;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produce throughput to the probe topic, once per producer variant, one after the other in the
 * same run so they share the path's conditions: the client's own producer settings (Kafka's
 * defaults where it sets none), and tcpsight's recommendation for the measured path. A variant
 * counts the bytes the cluster acknowledged within its time, from when its producer knows the
 * topic's partitions; what is still buffered then is
 * dropped, so a slow variant never holds up the next. Writes records of incompressible bytes.
 */
final class WriteProbe {
    /** The size of every probe record's value, as the notes' worked examples assume. */
    static final int RECORD_BYTES = 1000;

    private WriteProbe() {}

    static List<ThroughputProbe.Variant> variants(ProducerSizing sizing) {
        return List.of(
                new ThroughputProbe.Variant("producer as configured (Kafka's defaults where unset)", Map.of()),
                new ThroughputProbe.Variant(
                        "tcpsight recommendation (batch.size " + sizing.batchBytes() / 1024 + " KiB, linger.ms "
                                + ProducerSizing.LINGER_MS + ", send.buffer.bytes -1)",
                        sizing.clientSettings()));
    }

    static List<ThroughputProbe.Result> run(
            Properties clientConfig,
            String topic,
            List<ThroughputProbe.Variant> variants,
            Duration each,
            PrintStream progress) {
        List<ThroughputProbe.Result> results = new ArrayList<>();
        for (ThroughputProbe.Variant variant : variants) {
            results.add(runOne(clientConfig, topic, variant, each, progress));
        }
        return results;
    }

    /** The client config's producer keys (connection, security, and any producer setting it has). */
    static Properties producerConfig(Properties clientConfig, ThroughputProbe.Variant variant) {
        Properties config = new Properties();
        for (String key : clientConfig.stringPropertyNames()) {
            if (ProducerConfig.configNames().contains(key)) {
                config.setProperty(key, clientConfig.getProperty(key));
            }
        }
        config.putAll(variant.overrides());
        config.setProperty(ProducerConfig.CLIENT_ID_CONFIG, "tcpsight-doctor-write-probe");
        config.setProperty(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.setProperty(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return config;
    }

    private static ThroughputProbe.Result runOne(
            Properties clientConfig,
            String topic,
            ThroughputProbe.Variant variant,
            Duration limit,
            PrintStream progress) {
        byte[] value = new byte[RECORD_BYTES];
        SplittableRandom random = new SplittableRandom(RECORD_BYTES);
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) random.nextInt(256);
        }
        AtomicLong acknowledged = new AtomicLong();
        AtomicReference<Exception> failure = new AtomicReference<>();
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig(clientConfig, variant));
        try {
            try {
                // timed from when the producer knows the topic's partitions, as the consume probe is timed from
                // when its consumer knows where they end: what a variant's settings move, not the metadata lookup
                producer.partitionsFor(topic);
            } catch (KafkaException failed) {
                throw new IllegalStateException(
                        "writing to topic " + topic + " failed: " + failed.getMessage(), failed);
            }
            long start = System.nanoTime();
            long deadline = start + limit.toNanos();
            long nextProgress = start + 1_000_000_000L;
            long now = start;
            while (now < deadline && failure.get() == null) {
                producer.send(new ProducerRecord<>(topic, value), (metadata, failed) -> {
                    if (failed == null) {
                        acknowledged.incrementAndGet();
                    } else {
                        failure.compareAndSet(null, failed);
                    }
                });
                now = System.nanoTime();
                if (now >= nextProgress) {
                    nextProgress += 1_000_000_000L;
                    progress.printf(
                            Locale.ROOT,
                            "\r  %s  %.0f s",
                            result(variant, acknowledged.get(), now - start).describe(),
                            (now - start) / 1e9);
                    progress.flush();
                }
            }
            ThroughputProbe.Result result = result(variant, acknowledged.get(), System.nanoTime() - start);
            if (failure.get() != null) {
                throw new IllegalStateException(
                        "writing to topic " + topic + " failed: "
                                + failure.get().getMessage(),
                        failure.get());
            }
            progress.print("\r  " + result.describe() + "          \n");
            progress.flush();
            return result;
        } finally {
            // what is still buffered is dropped: the next variant must not wait for this one's backlog
            producer.close(Duration.ZERO);
        }
    }

    private static ThroughputProbe.Result result(ThroughputProbe.Variant variant, long records, long nanos) {
        return new ThroughputProbe.Result(variant, records * RECORD_BYTES, records, Duration.ofNanos(nanos), false);
    }
}
