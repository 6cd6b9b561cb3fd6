package io.tcpsight.lab;

import io.tcpsight.kafka.TcpsightMetricsReporter;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A Java consumer with the tcpsight reporter, run by lab tests as a child process on the client
 * side (so that the client's sysctls apply): {@code BOOTSTRAP TOPIC CLIENT_ID SECONDS TARGET_MBIT
 * [KEY=VALUE...]}. Its receive buffer autotunes and its fetches are sized for a long fat path, so
 * that only the host can hold its window, unless a trailing consumer setting says otherwise. Reads the topic from its start for SECONDS after the first record,
 * then prints every finding its reporter raised ({@code finding {...}}) and {@code rate MBIT}; first it
 * prints {@code runtime VERSION}, its Java runtime's.
 */
public final class ReportingConsumer {
    private ReportingConsumer() {}

    public static void main(String[] args) throws Exception {
        System.out.println("runtime " + Runtime.version()); // the lab runs this on several Java releases
        String clientId = args[2];
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, clientId);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, "-1");
        config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(64 << 20));
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(32 << 20));
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20000");
        config.put(ConsumerConfig.METRIC_REPORTER_CLASSES_CONFIG, TcpsightMetricsReporter.class.getName());
        config.put("tcpsight.sample.interval.ms", "2000");
        config.put("tcpsight.target.throughput.mbit", args[4]);
        for (int i = 5; i < args.length; i++) {
            int equals = args[i].indexOf('=');
            config.put(args[i].substring(0, equals), args[i].substring(equals + 1));
        }
        Set<String> findings = new LinkedHashSet<>();
        long measured = Duration.ofSeconds(Long.parseLong(args[3])).toNanos();
        long bytes = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(args[1]));
            long start = 0;
            while (start == 0 || System.nanoTime() - start < measured) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    if (start == 0) {
                        start = System.nanoTime();
                    }
                    bytes += record.value().length;
                }
                for (String finding : ReporterJmx.findings(clientId)) {
                    findings.add(finding);
                }
            }
        }
        findings.forEach(finding -> System.out.println(ReporterJmx.LINE_PREFIX + finding));
        System.out.printf("rate %.1f%n", bytes * 8 / 1e6 / (measured / 1e9));
    }
}
