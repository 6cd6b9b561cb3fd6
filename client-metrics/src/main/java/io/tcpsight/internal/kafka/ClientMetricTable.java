package io.tcpsight.internal.kafka;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * The metrics of its client a reporter keeps (those {@code wanted} accepts), as Kafka hands them
 * over in {@code init} and {@code metricChange}: per broker ("node-id" {@code node-N}) or
 * client-wide. Holds one entry per wanted metric, so it grows with the client's brokers only.
 */
final class ClientMetricTable {
    private final Predicate<MetricName> wanted;
    /** "N/name" for a node's metric, "name" for a client-wide one. */
    private final Map<String, KafkaMetric> metrics = new ConcurrentHashMap<>();

    ClientMetricTable(Predicate<MetricName> wanted) {
        this.wanted = wanted;
    }

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

    private String key(MetricName name) {
        if (!wanted.test(name)) {
            return null;
        }
        String node = name.tags().get("node-id");
        if (node == null) {
            return name.name();
        }
        return node.startsWith("node-") ? node.substring("node-".length()) + "/" + name.name() : null;
    }

    /** Each node's values of the two metrics, in that order, -1 where one is not known yet. */
    Map<String, long[]> byNode(String first, String second) {
        Map<String, long[]> byNode = new HashMap<>();
        metrics.forEach((key, metric) -> {
            int slash = key.indexOf('/');
            String name = slash < 0 ? "" : key.substring(slash + 1);
            if (name.equals(first) || name.equals(second)) {
                long[] values = byNode.computeIfAbsent(key.substring(0, slash), node -> new long[] {-1, -1});
                double value = value(metric);
                values[name.equals(first) ? 0 : 1] = value < 0 ? -1 : (long) value;
            }
        });
        return byNode;
    }

    /** A client-wide metric's value, or -1 when it has none (NaN before its first sample). */
    double clientWide(String name) {
        return value(metrics.get(name));
    }

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
