package io.tcpsight.connect.internal.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** Real Kafka clients named as Connect names a task's clients register in JMX; LocalTasks reads them back. */
class LocalTasksTest {
    @Test
    void tasksAreFoundFromTheirClientsAndOtherClientsAreIgnored() {
        Properties consumer = new Properties();
        consumer.put("bootstrap.servers", "127.0.0.1:1");
        consumer.put("client.id", "connector-consumer-sink-to-s3-3");
        consumer.put("group.id", "connect-sink-to-s3");
        Properties producer = new Properties();
        producer.put("bootstrap.servers", "127.0.0.1:1");
        producer.put("client.id", "connector-producer-jdbc-source-0");
        Properties plain = new Properties();
        plain.put("bootstrap.servers", "127.0.0.1:1");
        plain.put("client.id", "an-application");
        plain.put("group.id", "app");
        long startedAfter = System.currentTimeMillis();
        try (KafkaConsumer<byte[], byte[]> task =
                        new KafkaConsumer<>(consumer, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                KafkaProducer<byte[], byte[]> source =
                        new KafkaProducer<>(producer, new ByteArraySerializer(), new ByteArraySerializer());
                KafkaConsumer<byte[], byte[]> application =
                        new KafkaConsumer<>(plain, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            long builtBy = System.currentTimeMillis();
            Map<String, Map<Integer, Optional<Instant>>> tasks = LocalTasks.read();
            assertEquals(Set.of("sink-to-s3", "jdbc-source"), tasks.keySet());
            assertEquals(Set.of(3), tasks.get("sink-to-s3").keySet());
            assertEquals(Set.of(0), tasks.get("jdbc-source").keySet());
            // Each task's build time is its client's own start, read from the client's app-info.
            for (Map<Integer, Optional<Instant>> ofConnector : tasks.values()) {
                Instant built = ofConnector.values().iterator().next().orElseThrow();
                assertTrue(
                        built.toEpochMilli() >= startedAfter && built.toEpochMilli() <= builtBy,
                        built + " between " + startedAfter + " and " + builtBy);
            }
        }
        assertEquals(Map.of(), LocalTasks.read(), "closed clients leave JMX");
    }
}
