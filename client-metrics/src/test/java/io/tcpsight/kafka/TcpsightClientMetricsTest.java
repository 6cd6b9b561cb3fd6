package io.tcpsight.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpsight.internal.kafka.ReporterDirectory;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The public binder on real Kafka clients (constructed, never connected: a client makes its
 * metrics and its reporter in its constructor): it finds the reporter of its own client, tags
 * what it binds with the client's id and the application's tags, and removes it all on close.
 */
class TcpsightClientMetricsTest {
    @Test
    void aConsumerWithTheReporterGetsTcpsightsMetersTaggedWithItsClientIdUntilClosed() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("orders-reader", true)) {
            TcpsightClientMetrics metrics = new TcpsightClientMetrics(consumer, Tags.of("app", "shop"));
            metrics.bindTo(registry);
            Set<String> names = tcpsightNames(registry);
            assertTrue(
                    names.containsAll(Set.of("tcpsight.connections", "tcpsight.findings", "tcpsight.round.duration")),
                    names.toString());
            for (Meter meter : registry.getMeters()) {
                assertEquals(
                        "orders-reader",
                        meter.getId().getTag("client.id"),
                        meter.getId().toString());
                assertEquals("shop", meter.getId().getTag("app"), meter.getId().toString());
            }
            metrics.close();
            assertEquals(Set.of(), tcpsightNames(registry), "every meter it bound is removed on close");
        }
    }

    @Test
    void aClientWithoutTheReporterGetsNoMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("plain", false);
                TcpsightClientMetrics metrics = new TcpsightClientMetrics(consumer)) {
            metrics.bindTo(registry);
            assertEquals(Set.of(), tcpsightNames(registry));
        }
    }

    @Test
    void twoClientsWithOneClientIdEachFindTheirOwnReporter() {
        try (KafkaConsumer<byte[], byte[]> first = consumer("same-id", true);
                KafkaProducer<byte[], byte[]> second = producer("same-id")) {
            ConnectionMonitor firsts = ReporterDirectory.of(first.metrics()).orElseThrow();
            ConnectionMonitor seconds = ReporterDirectory.of(second.metrics()).orElseThrow();
            assertNotSame(firsts, seconds);
        }
    }

    @Test
    void aClosedClientLeavesTheDirectory() {
        KafkaConsumer<byte[], byte[]> consumer = consumer("closing", true);
        Map<MetricName, ? extends Metric> metrics = new HashMap<>(consumer.metrics());
        assertTrue(ReporterDirectory.of(metrics).isPresent());
        consumer.close();
        assertTrue(ReporterDirectory.of(metrics).isEmpty());
    }

    private static Set<String> tcpsightNames(SimpleMeterRegistry registry) {
        Set<String> names = new TreeSet<>();
        registry.getMeters().forEach(meter -> names.add(meter.getId().getName()));
        return names;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String clientId, boolean withReporter) {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", "127.0.0.1:1");
        config.put("client.id", clientId);
        config.put("group.id", "g");
        config.put("key.deserializer", ByteArrayDeserializer.class.getName());
        config.put("value.deserializer", ByteArrayDeserializer.class.getName());
        if (withReporter) {
            config.put("metric.reporters", TcpsightMetricsReporter.class.getName());
        }
        return new KafkaConsumer<>(config);
    }

    private static KafkaProducer<byte[], byte[]> producer(String clientId) {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", "127.0.0.1:1");
        config.put("client.id", clientId);
        config.put("key.serializer", ByteArraySerializer.class.getName());
        config.put("value.serializer", ByteArraySerializer.class.getName());
        config.put("metric.reporters", TcpsightMetricsReporter.class.getName());
        return new KafkaProducer<>(config);
    }
}
