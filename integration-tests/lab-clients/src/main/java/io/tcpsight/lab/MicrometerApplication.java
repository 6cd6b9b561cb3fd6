package io.tcpsight.lab;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.kafka.TcpsightClientMetrics;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * An application with its own Micrometer registry, as docs/metrics.md binds tcpsight's meters in
 * it: a producer and a consumer with tcpsight's reporter, each bound with one line, on a class path
 * of kafka-clients, tcpsight's jar and Micrometer's Prometheus registry: {@code BOOTSTRAP TOPIC
 * SECONDS}. It writes and reads the topic for SECONDS, prints the registry's scrape (each line
 * {@code scrape LINE}) and the connections each client's reporter tracks by its own JMX
 * ({@code tracked CLIENT_ID N}), closes the consumer's binder, runs on for three rounds and prints
 * the consumer's tcpsight series left ({@code left N}).
 */
public final class MicrometerApplication {
    /** The client ids, one per kind. */
    public static final List<String> CLIENT_IDS = List.of("micrometer-producer", "micrometer-consumer");

    private MicrometerApplication() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        long seconds = Long.parseLong(args[2]);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", bootstrap);
        config.put("tcpsight.sample.interval.ms", "1000");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        config.put("client.id", CLIENT_IDS.get(0));
        // docs/metrics.md: begin
        config.put("metric.reporters", "io.tcpsight.kafka.TcpsightMetricsReporter");
        KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
        new TcpsightClientMetrics(producer).bindTo(registry);
        // docs/metrics.md: end
        config.put("client.id", CLIENT_IDS.get(1));
        KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        TcpsightClientMetrics consumerMetrics = new TcpsightClientMetrics(consumer);
        consumerMetrics.bindTo(registry);
        TopicPartition partition = new TopicPartition(topic, 0);
        consumer.assign(List.of(partition));
        byte[] value = new byte[10_000];
        long busyUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < busyUntil) {
            producer.send(new ProducerRecord<>(topic, value));
            consumer.poll(Duration.ofMillis(100));
        }
        registry.scrape().lines().forEach(line -> System.out.println("scrape " + line));
        // what each client's own reporter serves over JMX, read at the same moment: the connections it tracks
        for (String clientId : CLIENT_IDS) {
            ObjectName name = new ObjectName("io.tcpsight:type=ClientMetrics,name=" + ObjectName.quote(clientId));
            System.out.println("tracked " + clientId + " "
                    + ManagementFactory.getPlatformMBeanServer().getAttribute(name, "TrackedConnections"));
        }
        consumerMetrics.close();
        // the consumer runs on for three of its reporter's rounds: none of them binds anything where it was
        long runOn = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (System.nanoTime() < runOn) {
            producer.send(new ProducerRecord<>(topic, value));
            consumer.poll(Duration.ofMillis(100));
        }
        long left = registry.scrape()
                .lines()
                .filter(line -> line.startsWith("tcpsight_") && line.contains(CLIENT_IDS.get(1)))
                .count();
        System.out.println("left " + left);
        consumer.close();
        producer.close();
    }
}
