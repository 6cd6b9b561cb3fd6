package io.tcpsight.internal.kafka;

import io.tcpsight.internal.monitor.ConnectionMonitor;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The monitors of the reporters at work in this JVM, each found by one object its client shares
 * with it: the {@code count} metric of group {@code kafka-metrics-count}, which every client's
 * metrics registry makes first and keeps until the client closes, which the client hands its
 * reporters and returns from its own {@code metrics()}. By that object, not by client.id: two
 * clients may share a client.id. An entry lives from the moment the reporter at work sees that
 * metric (in {@code init} or {@code metricChange}) to its close, so the directory holds one per
 * running client with a reporter at work (and one for a client never closed, as Kafka keeps
 * that client's own metrics too).
 */
public final class ReporterDirectory {
    private static final String COUNT_GROUP = "kafka-metrics-count";
    private static final String COUNT = "count";
    private static final Map<Metric, ConnectionMonitor> BY_COUNT = Collections.synchronizedMap(new IdentityHashMap<>());

    private ReporterDirectory() {}

    static boolean isCount(MetricName name) {
        return COUNT.equals(name.name()) && COUNT_GROUP.equals(name.group());
    }

    static void add(Metric count, ConnectionMonitor monitor) {
        BY_COUNT.put(count, monitor);
    }

    static void remove(Metric count) {
        BY_COUNT.remove(count);
    }

    /** The monitor of the reporter in the client whose {@code metrics()} these are; empty without one at work. */
    public static Optional<ConnectionMonitor> of(Map<MetricName, ? extends Metric> clientMetrics) {
        for (Map.Entry<MetricName, ? extends Metric> metric : clientMetrics.entrySet()) {
            if (isCount(metric.getKey())) {
                return Optional.ofNullable(BY_COUNT.get(metric.getValue()));
            }
        }
        return Optional.empty();
    }

    /** How many reporters are listed: one per running client with a reporter at work. */
    static int size() {
        return BY_COUNT.size();
    }
}
