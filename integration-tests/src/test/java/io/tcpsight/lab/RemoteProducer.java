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
 * tests as a child process: {@code BOOTSTRAP TOPIC CLIENT_ID SECONDS [key=value ...]}. Prints
 * {@code rate BYTES_PER_SECOND} from its own metric {@code outgoing-byte-total} over the run after
 * its first {@value #WARM_UP_SECONDS} s (the window's growth), and {@code failed N} for records that
 * failed meanwhile; what is still buffered at the end is dropped. Given {@code metric.reporters}
 * (the tcpsight reporter), it prints the reporter's findings once a second, as
 * {@link ReportingProducer} does.
 */
public final class RemoteProducer {
    static final int WARM_UP_SECONDS = 4;

    private RemoteProducer() {}

    public static void main(String[] args) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, args[2]);
        for (int i = 4; i < args.length; i++) {
            String[] setting = args[i].split("=", 2);
            config.put(setting[0], setting[1]);
        }
        long seconds = Long.parseLong(args[3]);
        byte[] value = new byte[1000];
        new Random(7).nextBytes(value);
        AtomicLong failed = new AtomicLong();
        long start = System.nanoTime();
        long warmedUp = start + WARM_UP_SECONDS * 1_000_000_000L;
        long end = start + seconds * 1_000_000_000L;
        double bytesAtWarmUp = -1;
        long warmUpNanos = 0;
        boolean reporting = config.containsKey(ProducerConfig.METRIC_REPORTER_CLASSES_CONFIG);
        long nextReport = start + 1_000_000_000L;
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            while (System.nanoTime() < end) {
                producer.send(new ProducerRecord<>(args[1], value), (metadata, failure) -> {
                    if (failure != null) {
                        failed.incrementAndGet();
                    }
                }); // blocks when buffer.memory is full
                if (bytesAtWarmUp < 0 && System.nanoTime() >= warmedUp) {
                    bytesAtWarmUp = outgoingBytes(producer);
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
            System.out.printf("rate %.0f%n", sent / ((System.nanoTime() - warmUpNanos) / 1e9));
            System.out.println("failed " + failed.get());
            // What is still buffered is dropped, not sent: at Kafka's defaults 100 ms away, 32 MiB would take
            // half a minute to cross.
            producer.close(Duration.ZERO);
        }
        System.out.println("done");
    }

    private static double outgoingBytes(KafkaProducer<?, ?> producer) {
        for (Map.Entry<MetricName, ? extends Metric> metric : producer.metrics().entrySet()) {
            MetricName name = metric.getKey();
            if (name.group().equals("producer-metrics") && name.name().equals("outgoing-byte-total")) {
                return ((Number) metric.getValue().metricValue()).doubleValue();
            }
        }
        throw new IllegalStateException("the producer has no producer-metrics outgoing-byte-total");
    }
}
