package io.tcpsight.doctor;

import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.tuning.ProducerSizing;
import java.io.IOException;
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
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.metrics.KafkaMetric;
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

    /** The probe's producer's client.id: a finding on its connection names what ran. */
    static final String CLIENT_ID = "tcpsight-doctor-write-probe";

    /** The user's producer settings as they are, the first variant. */
    static final ThroughputProbe.Variant AS_CONFIGURED =
            new ThroughputProbe.Variant("producer as configured (Kafka's defaults where unset)", Map.of());

    private WriteProbe() {}

    /**
     * The variants: the client's own settings first, then tcpsight's. The client's buffer.memory is
     * held to the sizing's for the probe where it is larger. A producer its pipeline limits fills
     * whatever buffer it has, and the probe's writer filled librdkafka's 1 GiB queue (a Java
     * producer's buffer.memory here) into the doctor's heap within 3 s of an 8 s variant, its
     * collections pausing the JVM for about 1 s of them, while the variant was timed (docs/lab.md).
     * The sizing's buffer holds twice what the pipeline keeps in flight at the target, so holding
     * the probe to it changes no rate the pipeline carries.
     */
    static List<ThroughputProbe.Variant> variants(ProducerSizing sizing, Properties clientConfig) {
        return List.of(
                asConfigured(sizing, clientConfig),
                new ThroughputProbe.Variant(
                        "tcpsight recommendation (batch.size " + sizing.batchBytes() / 1024 + " KiB, linger.ms "
                                + ProducerSizing.LINGER_MS + ", send.buffer.bytes -1)",
                        sizing.clientSettings()));
    }

    /** The client's own settings, its buffer.memory held to the sizing's where it is larger. */
    static ThroughputProbe.Variant asConfigured(ProducerSizing sizing, Properties clientConfig) {
        long configured;
        try {
            configured = Long.parseLong(clientConfig
                    .getProperty(
                            ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(ProducerSizing.DEFAULT_BUFFER_MEMORY))
                    .trim());
        } catch (NumberFormatException notANumber) {
            return AS_CONFIGURED; // the producer names the key and its value itself
        }
        long held = sizing.bufferMemoryBytes();
        if (configured <= held) {
            return AS_CONFIGURED;
        }
        return new ThroughputProbe.Variant(
                AS_CONFIGURED.label() + ", buffer.memory " + size(held) + " for the probe, not " + size(configured),
                Map.of(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(held)));
    }

    private static final long MIB = 1024 * 1024;

    /** Whole MiB where the size is one, else its bytes: a label never reads "32 MiB, not 32 MiB". */
    private static String size(long bytes) {
        return bytes % MIB == 0 ? bytes / MIB + " MiB" : bytes + " bytes";
    }

    /**
     * What the probe measured: each variant's rate, and what each variant's own connection showed,
     * judged as the agent judges a producer.
     *
     * @param ownConnections each variant's judgement, in the order of {@code results}; empty where none was judged
     */
    record Measured(List<ThroughputProbe.Result> results, List<OwnConnection> ownConnections) {
        static final Measured NOTHING = new Measured(List.of(), List.of());
    }

    /**
     * One variant's own connection, judged as the agent judges a producer.
     *
     * @param findings what the rules found on it
     * @param requests the requests its socket was judged with (the producer's own count over the judged time)
     * @param note why it was not judged; empty where it was
     */
    record OwnConnection(List<Finding> findings, long requests, String note) {
        /** Nothing judged, and why. */
        static OwnConnection notJudged(String why) {
            return new OwnConnection(List.of(), 0, "not judged: " + why);
        }
    }

    /**
     * Runs each variant in turn; each one's own connection is judged by the judge {@code judges}
     * gives for it (null: none judged) over the variant's time after its first quarter, past the
     * flow's ramp.
     */
    static Measured run(
            Properties clientConfig,
            String topic,
            List<ThroughputProbe.Variant> variants,
            Duration each,
            PrintStream progress,
            Function<ThroughputProbe.Variant, ProducerConnectionJudge> judges) {
        List<ThroughputProbe.Result> results = new ArrayList<>();
        List<OwnConnection> ownConnections = new ArrayList<>();
        for (ThroughputProbe.Variant variant : variants) {
            Judged judged = judges == null ? null : Judged.of(judges, variant);
            results.add(runOne(clientConfig, topic, variant, each, progress, judged));
            if (judged != null) {
                ownConnections.add(judged.outcome);
            }
        }
        return new Measured(results, ownConnections);
    }

    /**
     * The judgement of one variant's own connection, as it went. Whatever goes wrong in it is said
     * in the report and leaves the rates measured: the probe is what the user asked for.
     */
    private static final class Judged {
        private final ProducerConnectionJudge judge;
        private OwnConnection outcome = OwnConnection.notJudged("the probe ended before its first quarter");
        private boolean started;

        private Judged(ProducerConnectionJudge judge) {
            this.judge = judge;
        }

        static Judged of(
                Function<ThroughputProbe.Variant, ProducerConnectionJudge> judges, ThroughputProbe.Variant variant) {
            try {
                return new Judged(judges.apply(variant));
            } catch (RuntimeException | LinkageError failed) {
                Judged none = new Judged(null);
                none.outcome = OwnConnection.notJudged("its connections could not be read (" + failed + ")");
                return none;
            }
        }

        void start(KafkaProducer<?, ?> producer) {
            if (judge == null) {
                return;
            }
            try {
                feed(producer);
                judge.start();
                started = true;
            } catch (IOException | RuntimeException | LinkageError failed) {
                outcome = OwnConnection.notJudged("its connections could not be read (" + failed + ")");
            }
        }

        void end(KafkaProducer<?, ?> producer) {
            if (!started) {
                return;
            }
            try {
                feed(producer);
                ProducerConnectionJudge.Judgement judgement = judge.judge();
                outcome = judgement.connections() == 0
                        ? OwnConnection.notJudged("no connection to a broker carried its requests")
                        : new OwnConnection(judgement.findings(), judgement.requests(), "");
            } catch (IOException | RuntimeException | LinkageError failed) {
                outcome = OwnConnection.notJudged("its connections could not be read (" + failed + ")");
            }
        }

        /** The producer's metrics as it has them now, into the judge's counts (a broker's appear once it connects). */
        private void feed(KafkaProducer<?, ?> producer) {
            for (Metric metric : producer.metrics().values()) {
                if (metric instanceof KafkaMetric) {
                    judge.counts().metric((KafkaMetric) metric);
                }
            }
        }
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
        config.setProperty(ProducerConfig.CLIENT_ID_CONFIG, CLIENT_ID);
        config.setProperty(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.setProperty(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return config;
    }

    private static ThroughputProbe.Result runOne(
            Properties clientConfig,
            String topic,
            ThroughputProbe.Variant variant,
            Duration limit,
            PrintStream progress,
            Judged judged) {
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
            /*
             * The rate is read over the last three quarters, the window the variant's own connection is judged over:
             * what its settings keep moving, not its connection's start-up, which on a long path holds the first
             * second (2.1 MB of 8 s at 100 ms and 200 Mbit/s, against 23.8 MB in each second after; docs/lab.md).
             */
            long steadyFrom = start + limit.toNanos() / 4;
            long steadyStart = -1;
            long acknowledgedBefore = 0;
            long nextProgress = start + 1_000_000_000L;
            long now = start;
            while (now < deadline && failure.get() == null) {
                if (steadyStart < 0 && now >= steadyFrom) {
                    steadyStart = now;
                    acknowledgedBefore = acknowledged.get();
                    if (judged != null) {
                        judged.start(producer);
                    }
                }
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
                            result(variant, acknowledged.get(), now - start, 0).describe(),
                            (now - start) / 1e9);
                    progress.flush();
                }
            }
            long end = System.nanoTime();
            long acknowledgedAtEnd = acknowledged.get(); // once: callbacks go on counting
            ThroughputProbe.Result result = steadyStart < 0
                    ? result(variant, acknowledgedAtEnd, end - start, 0)
                    : result(variant, acknowledgedAtEnd - acknowledgedBefore, end - steadyStart, steadyStart - start);
            if (judged != null) {
                judged.end(producer); // nothing where it never started
            }
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

    /** {@code records} acknowledged over {@code nanos}, read from {@code afterNanos} into the variant's run. */
    private static ThroughputProbe.Result result(
            ThroughputProbe.Variant variant, long records, long nanos, long afterNanos) {
        return new ThroughputProbe.Result(
                variant, records * RECORD_BYTES, records, Duration.ofNanos(nanos), false, Duration.ofNanos(afterNanos));
    }
}
