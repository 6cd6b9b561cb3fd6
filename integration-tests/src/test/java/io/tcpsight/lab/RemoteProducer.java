package io.tcpsight.lab;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A Java producer as an application far from its brokers runs one: Kafka's defaults unless told
 * otherwise, 1,000-byte records written as fast as it takes them, in a JVM of its own. Run by lab
 * tests as a child process: {@code BOOTSTRAP TOPIC CLIENT_ID SECONDS [key=value ...]}, SECONDS from
 * when it knows its topic's partitions. Prints {@code sending after N ms} (from its start), then
 * {@code rate BYTES_PER_SECOND} from its own metric {@code outgoing-byte-total} over the run after
 * its first {@value #WARM_UP_SECONDS} s (the window's growth), and {@code failed N} for records that
 * failed meanwhile; what is still buffered at the end is dropped. Given {@code metric.reporters}
 * (the tcpsight reporter), it prints the reporter's findings once a second, as
 * {@link ReportingProducer} does. Given {@code lab.pace.records=N} and {@code lab.pace.every.ms=M}
 * (not producer settings), it writes as an application with its own pace does: N records at once,
 * then nothing until M ms after the burst began. Given {@code lab.print.instance=true}, it prints
 * {@code client instance ID after N ms} once the broker has answered its request for a telemetry
 * subscription (KIP-714), or {@code no client instance after N ms: WHY}: whether it asked at all;
 * and its client telemetry's own log lines at DEBUG (what it was given, each push and its answer).
 */
public final class RemoteProducer {
    static final int WARM_UP_SECONDS = 4;
    private static final String PACE_RECORDS = "lab.pace.records";
    private static final String PACE_EVERY_MS = "lab.pace.every.ms";
    private static final String PRINT_INSTANCE = "lab.print.instance";

    private RemoteProducer() {}

    public static void main(String[] args) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, args[2]);
        for (int i = 4; i < args.length; i++) {
            String[] setting = args[i].split("=", 2);
            config.put(setting[0], setting[1]);
        }
        int paceRecords = Integer.parseInt(String.valueOf(config.getOrDefault(PACE_RECORDS, "0")));
        long paceEveryNanos = Long.parseLong(String.valueOf(config.getOrDefault(PACE_EVERY_MS, "0"))) * 1_000_000L;
        boolean printInstance = Boolean.parseBoolean(String.valueOf(config.remove(PRINT_INSTANCE)));
        if (printInstance) {
            // read by SLF4J's simple logger as each logger is created, so before the producer creates its own
            System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka.common.telemetry", "debug");
        }
        config.remove(PACE_RECORDS);
        config.remove(PACE_EVERY_MS);
        long seconds = Long.parseLong(args[3]);
        byte[] value = new byte[1000];
        new Random(7).nextBytes(value);
        AtomicLong failed = new AtomicLong();
        long start = System.nanoTime();
        double bytesAtWarmUp = -1;
        double requestsAtWarmUp = -1;
        long warmUpNanos = 0;
        boolean reporting = config.containsKey(ProducerConfig.METRIC_REPORTER_CLASSES_CONFIG);
        int inBurst = 0;
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            if (printInstance) {
                printClientInstance(producer, start, seconds);
            }
            // The run is timed from here, once the producer knows its topic: its construction and first metadata took
            // 3.1-3.6 s, measured for two producers with the reporter starting at once beside kcat on two cores
            // (7.2-8.0 s with three busy loops beside), and a run timed from main left the broker one interval of its
            // records or none.
            producer.partitionsFor(args[1]);
            long sending = System.nanoTime();
            System.out.printf("sending after %d ms%n", (sending - start) / 1_000_000L);
            long warmedUp = sending + WARM_UP_SECONDS * 1_000_000_000L;
            long end = sending + seconds * 1_000_000_000L;
            long nextReport = sending + 1_000_000_000L;
            long burstStart = sending;
            while (System.nanoTime() < end) {
                if (paceRecords > 0 && inBurst == paceRecords) {
                    burstStart += paceEveryNanos;
                    Thread.sleep(Math.max(0, (burstStart - System.nanoTime()) / 1_000_000L));
                    inBurst = 0;
                }
                inBurst++;
                producer.send(new ProducerRecord<>(args[1], value), (metadata, failure) -> {
                    if (failure != null) {
                        failed.incrementAndGet();
                    }
                }); // blocks when buffer.memory is full
                if (bytesAtWarmUp < 0 && System.nanoTime() >= warmedUp) {
                    bytesAtWarmUp = outgoingBytes(producer);
                    requestsAtWarmUp = metric(producer, "request-total");
                    warmUpNanos = System.nanoTime();
                }
                if (reporting && System.nanoTime() >= nextReport) {
                    nextReport += 1_000_000_000L;
                    for (String finding : ReporterJmx.findings(args[2])) {
                        System.out.println(ReporterJmx.LINE_PREFIX + finding);
                    }
                }
            }
            double sent = outgoingBytes(producer) - bytesAtWarmUp;
            double measuredSeconds = (System.nanoTime() - warmUpNanos) / 1e9;
            System.out.printf("rate %.0f%n", sent / measuredSeconds);
            // its own account of its pipeline after the warm-up, for tests that check what a rule made of it
            System.out.printf(
                    "pipeline requests/s %.2f batch-size-avg %.0f record-queue-time-avg %.1f%n",
                    (metric(producer, "request-total") - requestsAtWarmUp) / measuredSeconds,
                    metric(producer, "batch-size-avg"),
                    metric(producer, "record-queue-time-avg"));
            System.out.println("failed " + failed.get());
            // What is still buffered is dropped, not sent: at Kafka's defaults 100 ms away, 32 MiB would take
            // half a minute to cross.
            producer.close(Duration.ZERO);
        }
        System.out.println("done");
    }

    /** On a thread of its own: the producer's telemetry instance id, once the broker gave one, or why not. */
    private static void printClientInstance(KafkaProducer<?, ?> producer, long start, long seconds) {
        Thread asking = new Thread(
                () -> {
                    try {
                        Object id = producer.clientInstanceId(Duration.ofSeconds(seconds));
                        System.out.printf(
                                "client instance %s after %d ms%n", id, (System.nanoTime() - start) / 1_000_000L);
                    } catch (RuntimeException notGiven) {
                        System.out.printf(
                                "no client instance after %d ms: %s%n",
                                (System.nanoTime() - start) / 1_000_000L, notGiven);
                    }
                },
                "client-instance");
        asking.setDaemon(true);
        asking.start();
    }

    private static double outgoingBytes(KafkaProducer<?, ?> producer) {
        return metric(producer, "outgoing-byte-total");
    }

    private static double metric(KafkaProducer<?, ?> producer, String metricName) {
        for (Map.Entry<MetricName, ? extends Metric> metric : producer.metrics().entrySet()) {
            MetricName name = metric.getKey();
            if (name.group().equals("producer-metrics") && name.name().equals(metricName)) {
                return ((Number) metric.getValue().metricValue()).doubleValue();
            }
        }
        throw new IllegalStateException("the producer has no producer-metrics " + metricName);
    }
}
