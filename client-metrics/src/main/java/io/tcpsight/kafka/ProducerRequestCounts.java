package io.tcpsight.kafka;

import io.tcpsight.model.ProduceTraffic;
import io.tcpsight.model.ProduceTrafficCounter;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * What a producer sent each broker between two rounds, from its own metrics: the node's
 * {@code request-total} and {@code outgoing-byte-total} ({@code producer-node-metrics}), and the
 * partitions a request carries, as the client's {@code request-size-avg} over its
 * {@code batch-size-avg} ({@code producer-metrics}). These are the counts the broker agent reads
 * off the wire, seen from the producer, so the same rule judges both ends. Holds one entry per
 * broker the client has metrics for.
 */
final class ProducerRequestCounts {
    private static final String NODE_GROUP = "producer-node-metrics";
    private static final String CLIENT_GROUP = "producer-metrics";
    private static final String REQUESTS = "request-total";
    private static final String BYTES = "outgoing-byte-total";
    private static final String REQUEST_SIZE = "request-size-avg";
    private static final String BATCH_SIZE = "batch-size-avg";

    /** "NODE/request-total", "NODE/outgoing-byte-total", "request-size-avg", "batch-size-avg" -> metric. */
    private final Map<String, KafkaMetric> metrics = new ConcurrentHashMap<>();
    // The sampler thread only:
    private final ProduceTrafficCounter counter = new ProduceTrafficCounter();
    private volatile Map<String, ProduceTraffic> lastRound = Map.of();

    void metric(KafkaMetric metric) {
        String key = key(metric.metricName());
        if (key != null) {
            metrics.put(key, metric);
        }
    }

    void removed(KafkaMetric metric) {
        String key = key(metric.metricName());
        if (key != null) {
            metrics.remove(key, metric);
        }
    }

    private static String key(MetricName name) {
        if (name.group().equals(CLIENT_GROUP)
                && (name.name().equals(REQUEST_SIZE) || name.name().equals(BATCH_SIZE))) {
            return name.name();
        }
        String node = name.tags().get("node-id");
        if (!name.group().equals(NODE_GROUP)
                || node == null
                || !node.startsWith("node-")
                || !(name.name().equals(REQUESTS) || name.name().equals(BYTES))) {
            return null;
        }
        return node.substring("node-".length()) + "/" + name.name();
    }

    /** Takes the counts at the start of a round: each broker's traffic since the last one. */
    void round(long nowNanos) {
        Map<String, long[]> totals = new HashMap<>();
        metrics.forEach((key, metric) -> {
            int slash = key.indexOf('/');
            double value = value(metric);
            if (slash > 0 && value >= 0) {
                long[] counts = totals.computeIfAbsent(key.substring(0, slash), node -> new long[] {-1, -1});
                counts[key.endsWith(REQUESTS) ? 0 : 1] = (long) value;
            }
        });
        Integer partitions = partitionsPerRequest();
        Map<String, ProduceTraffic> traffic = counter.next(totals, node -> partitions, nowNanos);
        lastRound = Map.copyOf(traffic);
    }

    /** The broker's traffic in the interval before this round; empty before two rounds or for another node. */
    Optional<ProduceTraffic> toNode(String node) {
        return Optional.ofNullable(lastRound.get(node));
    }

    /** A request carries a batch for each partition it names; null until the client has sent one. */
    private Integer partitionsPerRequest() {
        return ProduceTrafficCounter.partitionsPerRequest(
                value(metrics.get(REQUEST_SIZE)), value(metrics.get(BATCH_SIZE)));
    }

    /** The metric's value, or -1 when it has none (NaN before the first sample). */
    private static double value(KafkaMetric metric) {
        if (metric == null) {
            return -1;
        }
        Object value = metric.metricValue();
        return value instanceof Number && !Double.isNaN(((Number) value).doubleValue())
                ? ((Number) value).doubleValue()
                : -1;
    }
}
