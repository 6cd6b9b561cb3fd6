package io.tcpsight.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.kafka.ReporterDirectory;
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
    void aConsumerWithTheReporterGetsTcpsightsMetersTaggedWithItsClientIdUntilClosed() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SimpleMeterRegistry watching = new SimpleMeterRegistry();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("orders-reader", true, "10");
                TcpsightClientMetrics watcher = new TcpsightClientMetrics(consumer)) {
            watcher.bindTo(watching); // counts the reporter's rounds, before and after the other binder closes
            TcpsightClientMetrics metrics = new TcpsightClientMetrics(consumer, Tags.of("app", "shop"));
            metrics.bindTo(registry);
            // its own two rounds: the watcher, bound first, may count a round from before this binder was bound
            awaitRounds(registry, 2);
            Set<String> names = tcpsightNames(registry);
            assertTrue(
                    names.containsAll(Set.of("tcpsight.connections", "tcpsight.findings", "tcpsight.round.duration")),
                    names.toString());
            assertTrue(registry.get("tcpsight.round.duration").timer().count() >= 2, "rounds recorded");
            for (Meter meter : registry.getMeters()) {
                assertEquals(
                        "orders-reader",
                        meter.getId().getTag("client.id"),
                        meter.getId().toString());
                assertEquals("shop", meter.getId().getTag("app"), meter.getId().toString());
            }
            metrics.close();
            assertEquals(Set.of(), tcpsightNames(registry), "every meter it bound is removed on close");
            // the client runs on: its later rounds bind nothing more where the closed binder was
            awaitRounds(watching, (int) roundsIn(watching) + 3);
            assertEquals(Set.of(), tcpsightNames(registry), "rounds after close register nothing");
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
        try (KafkaConsumer<byte[], byte[]> first = consumer("same-id", true, "7");
                KafkaProducer<byte[], byte[]> second = producer("same-id", "9")) {
            // each reporter was given its own tcpsight.metrics.top.connections: each client's is found, not the other's
            assertEquals(
                    7L,
                    ReporterDirectory.of(first.metrics())
                            .orElseThrow()
                            .config()
                            .get(TcpsightConfig.METRICS_TOP_CONNECTIONS));
            assertEquals(
                    9L,
                    ReporterDirectory.of(second.metrics())
                            .orElseThrow()
                            .config()
                            .get(TcpsightConfig.METRICS_TOP_CONNECTIONS));
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

    /** The rounds the watcher's registry has counted. */
    private static double roundsIn(SimpleMeterRegistry watching) {
        return watching.get("tcpsight.round.duration").timer().count();
    }

    /** Waits until the registry has counted this many rounds (10 ms apart, 10 s at most). */
    private static void awaitRounds(SimpleMeterRegistry watching, int rounds) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (roundsIn(watching) < rounds && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(roundsIn(watching) >= rounds, "the reporter ran " + roundsIn(watching) + " rounds, not " + rounds);
    }

    private static Set<String> tcpsightNames(SimpleMeterRegistry registry) {
        Set<String> names = new TreeSet<>();
        registry.getMeters().forEach(meter -> names.add(meter.getId().getName()));
        return names;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String clientId, boolean withReporter) {
        return consumer(clientId, withReporter, "10");
    }

    /** A consumer that rounds every 100 ms, with its reporter's top-connections setting when it has one. */
    private static KafkaConsumer<byte[], byte[]> consumer(String clientId, boolean withReporter, String top) {
        Map<String, Object> config = new HashMap<>();
        config.put("tcpsight.sample.interval.ms", "100");
        config.put("tcpsight.metrics.top.connections", top);
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

    private static KafkaProducer<byte[], byte[]> producer(String clientId, String top) {
        Map<String, Object> config = new HashMap<>();
        config.put("tcpsight.sample.interval.ms", "100");
        config.put("tcpsight.metrics.top.connections", top);
        config.put("bootstrap.servers", "127.0.0.1:1");
        config.put("client.id", clientId);
        config.put("key.serializer", ByteArraySerializer.class.getName());
        config.put("value.serializer", ByteArraySerializer.class.getName());
        config.put("metric.reporters", TcpsightMetricsReporter.class.getName());
        return new KafkaProducer<>(config);
    }
}
