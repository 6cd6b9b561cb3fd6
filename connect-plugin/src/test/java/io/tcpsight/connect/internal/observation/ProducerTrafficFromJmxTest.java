package io.tcpsight.connect.internal.observation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.ProduceTraffic;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/** A task producer's counts as Kafka's own JmxReporter exposes them, read into each broker's traffic per round. */
class ProducerTrafficFromJmxTest {
    @Test
    void aSourceTasksProducerTrafficPerBrokerFromItsJmxMetrics() {
        String client = "connector-producer-pg-source-0";
        try (Metrics metrics = new Metrics(
                new MetricConfig(),
                List.of(new JmxReporter()),
                Time.SYSTEM,
                new KafkaMetricsContext("kafka.producer"))) {
            AtomicReference<Double> requests =
                    gauge(metrics, "request-total", "producer-node-metrics", client, "node-2");
            AtomicReference<Double> bytes =
                    gauge(metrics, "outgoing-byte-total", "producer-node-metrics", client, "node-2");
            AtomicReference<Double> requestSize = gauge(metrics, "request-size-avg", "producer-metrics", client, null);
            AtomicReference<Double> batchSize = gauge(metrics, "batch-size-avg", "producer-metrics", client, null);
            AtomicReference<Double> bufferTotal =
                    gauge(metrics, "buffer-total-bytes", "producer-metrics", client, null);
            AtomicReference<Double> bufferAvailable =
                    gauge(metrics, "buffer-available-bytes", "producer-metrics", client, null);
            ProducerTrafficFromJmx traffic = new ProducerTrafficFromJmx(ManagementFactory.getPlatformMBeanServer());
            requests.set(1_000.0);
            bytes.set(1e7);
            traffic.round(0);
            assertTrue(traffic.of(client, "2").isEmpty(), "one reading has nothing to compare with");
            requests.set(1_060.0);
            bytes.set(1e7 + 60 * 65_600);
            requestSize.set(65_600.0);
            batchSize.set(16_400.0);
            bufferTotal.set(33_554_432.0);
            bufferAvailable.set(1_000_000.0);
            traffic.round(2_000_000_000L);
            ProduceTraffic toBroker2 = traffic.of(client, "2").orElseThrow();
            assertEquals(30, toBroker2.requestsPerSecond(), 1e-9);
            assertEquals(65_600, toBroker2.bytesPerRequest());
            assertEquals(4, toBroker2.partitionsPerRequest().getAsInt());
            // what its records hold of buffer.memory: total less available
            assertEquals(32_554_432L, toBroker2.bufferHeldBytes().getAsLong());
            assertEquals(33_554_432L, toBroker2.bufferTotalBytes().getAsLong());
            assertTrue(traffic.of(client, "1").isEmpty(), "no traffic to a broker it has no metrics for");
        }
    }

    private static AtomicReference<Double> gauge(
            Metrics metrics, String name, String group, String client, String node) {
        AtomicReference<Double> value = new AtomicReference<>(Double.NaN);
        Map<String, String> tags =
                node == null ? Map.of("client-id", client) : Map.of("client-id", client, "node-id", node);
        metrics.addMetric(new MetricName(name, group, "", tags), (config, now) -> value.get());
        return value;
    }
}
