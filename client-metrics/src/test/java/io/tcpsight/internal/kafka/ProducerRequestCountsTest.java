package io.tcpsight.internal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.ProduceTraffic;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.Test;

/** A producer's own counts, in Kafka's metric registry, turned into each broker's traffic per round. */
class ProducerRequestCountsTest {
    private final Metrics registry = new Metrics();
    private final ProducerRequestCounts counts = new ProducerRequestCounts();

    private AtomicReference<Double> metric(String name, String group, Map<String, String> tags) {
        AtomicReference<Double> value = new AtomicReference<>(Double.NaN);
        MetricName metricName = new MetricName(name, group, "", tags);
        registry.addMetric(metricName, (config, now) -> value.get());
        KafkaMetric metric = registry.metric(metricName);
        counts.metric(metric);
        return value;
    }

    @Test
    void eachBrokersRequestsAndBytesSinceTheLastRound() {
        AtomicReference<Double> requests =
                metric("request-total", "producer-node-metrics", Map.of("node-id", "node-1"));
        AtomicReference<Double> bytes =
                metric("outgoing-byte-total", "producer-node-metrics", Map.of("node-id", "node-1"));
        AtomicReference<Double> requestSize = metric("request-size-avg", "producer-metrics", Map.of());
        AtomicReference<Double> batchSize = metric("batch-size-avg", "producer-metrics", Map.of());
        AtomicReference<Double> bufferTotal = metric("buffer-total-bytes", "producer-metrics", Map.of());
        AtomicReference<Double> bufferAvailable = metric("buffer-available-bytes", "producer-metrics", Map.of());
        metric("request-total", "consumer-node-metrics", Map.of("node-id", "node-2")); // not a producer's
        requests.set(100.0);
        bytes.set(1_000_000.0);
        counts.round(0);
        assertTrue(counts.toNode("1").isEmpty(), "one round has nothing to compare with");
        requests.set(160.0);
        bytes.set(1_000_000.0 + 60 * 65_600);
        requestSize.set(65_600.0);
        batchSize.set(16_390.0);
        bufferTotal.set(33_554_432.0);
        bufferAvailable.set(33_521_664.0);
        counts.round(2_000_000_000L);
        ProduceTraffic traffic = counts.toNode("1").orElseThrow();
        assertEquals(32_768L, traffic.bufferHeldBytes().getAsLong(), "buffer.memory less what is available");
        assertEquals(30, traffic.requestsPerSecond(), 1e-9);
        assertEquals(65_600, traffic.bytesPerRequest());
        assertEquals(4, traffic.partitionsPerRequest().getAsInt(), "65,600 bytes a request of 16,390-byte batches");
        assertTrue(counts.toNode("2").isEmpty(), "a consumer's counts are not a producer's");
    }

    @Test
    void aRemovedOrResetCounterGivesNoTraffic() {
        AtomicReference<Double> requests =
                metric("request-total", "producer-node-metrics", Map.of("node-id", "node-3"));
        AtomicReference<Double> bytes =
                metric("outgoing-byte-total", "producer-node-metrics", Map.of("node-id", "node-3"));
        requests.set(10.0);
        bytes.set(5000.0);
        counts.round(0);
        requests.set(2.0); // a new client behind the same name starts again
        counts.round(1_000_000_000L);
        assertTrue(counts.toNode("3").isEmpty());
        counts.removed(registry.metric(
                new MetricName("request-total", "producer-node-metrics", "", Map.of("node-id", "node-3"))));
        counts.round(2_000_000_000L);
        counts.round(3_000_000_000L);
        assertTrue(counts.toNode("3").isEmpty(), "without its request count, no traffic");
    }
}
