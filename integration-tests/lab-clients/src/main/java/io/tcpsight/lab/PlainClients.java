package io.tcpsight.lab;

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
 * An application as README installs the reporter for plain clients: an admin client, a producer
 * and a consumer, each with {@code metric.reporters=io.tcpsight.kafka.TcpsightMetricsReporter},
 * written against kafka-clients' public API of 3.6 and later only, and run on a class path of
 * kafka-clients, its own dependencies and tcpsight's jar: {@code BOOTSTRAP TOPIC RECORDS SECONDS
 * [KEY=VALUE...]} (the settings go to every client). It creates the topic, produces and consumes
 * RECORDS, then keeps both busy for SECONDS and prints {@code produced N}, {@code consumed N} and,
 * per client, each connection its reporter serves over JMX ({@code connection CLIENT_ID LINE}).
 * Names nothing of tcpsight's but the reporter's class name, as a user's config does.
 */
public final class PlainClients {
    /** The client ids, one per kind. */
    public static final List<String> CLIENT_IDS = List.of("plain-admin", "plain-producer", "plain-consumer");

    private PlainClients() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        int records = Integer.parseInt(args[2]);
        long seconds = Long.parseLong(args[3]);
        Map<String, Object> common = new HashMap<>();
        common.put("bootstrap.servers", bootstrap);
        common.put("metric.reporters", "io.tcpsight.kafka.TcpsightMetricsReporter");
        common.put("tcpsight.sample.interval.ms", "1000");
        for (int i = 4; i < args.length; i++) {
            int equals = args[i].indexOf('=');
            common.put(args[i].substring(0, equals), args[i].substring(equals + 1));
        }
        byte[] value = new byte[10_000];
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Admin admin = Admin.create(with(common, "client.id", CLIENT_IDS.get(0)));
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                        with(common, "client.id", CLIENT_IDS.get(1)),
                        new ByteArraySerializer(),
                        new ByteArraySerializer());
                KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                        with(common, "client.id", CLIENT_IDS.get(2)),
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            int produced = 0;
            for (; produced < records; produced++) {
                producer.send(new ProducerRecord<>(topic, value)).get(60, TimeUnit.SECONDS);
            }
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long consumed = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (consumed < records && System.nanoTime() < deadline) {
                consumed += consumer.poll(Duration.ofMillis(200)).count();
            }
            // Both keep working while the reporters take their rounds; the admin client asks now and then.
            long busyUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < busyUntil) {
                producer.send(new ProducerRecord<>(topic, value));
                produced++;
                consumed += consumer.poll(Duration.ofMillis(100)).count();
                admin.describeTopics(List.of(topic));
            }
            System.out.println("produced " + produced);
            System.out.println("consumed " + consumed);
            for (String clientId : CLIENT_IDS) {
                ObjectName name = new ObjectName("io.tcpsight:type=ClientMetrics,name=" + ObjectName.quote(clientId));
                if (!ManagementFactory.getPlatformMBeanServer().isRegistered(name)) {
                    System.out.println("no reporter bean " + name);
                    continue;
                }
                for (String line :
                        (String[]) ManagementFactory.getPlatformMBeanServer().getAttribute(name, "WorstConnections")) {
                    System.out.println("connection " + clientId + " " + line);
                }
            }
        }
    }

    private static Map<String, Object> with(Map<String, Object> common, String key, Object value) {
        Map<String, Object> config = new HashMap<>(common);
        config.put(key, value);
        return config;
    }
}
