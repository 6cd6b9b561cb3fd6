package io.tcpsight.lab;

import io.tcpsight.kafka.TcpsightMetricsReporter;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A Java producer with Kafka's default send buffer and the tcpsight reporter, in a JVM of its own
 * as an application's producer would be, run by lab tests as a child process:
 * {@code BOOTSTRAP TOPIC CLIENT_ID USER PASSWORD SECONDS}. Sends 10 kB records for SECONDS and
 * prints the reporter's findings once a second, one JSON per line: {@code finding {...}}.
 */
public final class ReportingProducer {
    private ReportingProducer() {}

    public static void main(String[] args) throws Exception {
        String clientId = args[2];
        Map<String, Object> config = new HashMap<>(KafkaBroker.saslClient(args[3], args[4]));
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ProducerConfig.METRIC_REPORTER_CLASSES_CONFIG, TcpsightMetricsReporter.class.getName());
        config.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        config.put("tcpsight.sample.interval.ms", "1000");
        byte[] value = new byte[10_000];
        new Random(11).nextBytes(value);
        long end = System.nanoTime() + Long.parseLong(args[5]) * 1_000_000_000L;
        long nextReport = System.nanoTime() + 1_000_000_000L;
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            while (System.nanoTime() < end) {
                producer.send(new ProducerRecord<>(args[1], value)); // blocks when the buffer is full
                if (System.nanoTime() >= nextReport) {
                    nextReport += 1_000_000_000L;
                    for (String finding : ReporterJmx.findings(clientId)) {
                        System.out.println(ReporterJmx.LINE_PREFIX + finding);
                    }
                }
            }
        }
        System.out.println("done");
    }
}
