package io.tcpsight.lab;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A Java consumer as an application far from its brokers runs one: Kafka's defaults unless told
 * otherwise, reading a topic from its start in a group of its own (its client.id), in a JVM of its
 * own, so that it runs on the client side of the line wherever that is. Run by lab tests as a child
 * process: {@code BOOTSTRAP TOPIC CLIENT_ID SECONDS [key=value ...]}. Prints {@code read BYTES} at
 * the end.
 */
public final class RemoteConsumer {
    private RemoteConsumer() {}

    public static void main(String[] args) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, args[2]);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, args[2]);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        for (int i = 4; i < args.length; i++) {
            String[] setting = args[i].split("=", 2);
            config.put(setting[0], setting[1]);
        }
        long end =
                System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[3])).toNanos();
        long read = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(args[1]));
            while (System.nanoTime() < end) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                for (var record : records) {
                    read += record.value() == null ? 0 : record.value().length;
                }
            }
        }
        System.out.println("read " + read);
    }
}
