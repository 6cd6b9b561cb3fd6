package io.tcpsight.agent;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;

/**
 * What both client telemetry receivers are to Kafka: a {@code MetricsReporter} (the list Kafka
 * creates them from) that reads none of the broker's own metrics, and hands each push on through
 * {@link ClientTelemetryForwarding}. Each subclass adds the telemetry interface of its Kafka
 * releases.
 */
abstract class ClientTelemetryReporter implements MetricsReporter {
    final ClientTelemetryForwarding forwarding = new ClientTelemetryForwarding();

    @Override
    public final void configure(Map<String, ?> configs) {
        forwarding.configure(configs);
    }

    @Override
    public final void init(List<KafkaMetric> metrics) {
        // the broker's own metrics are not read
    }

    @Override
    public final void metricChange(KafkaMetric metric) {}

    @Override
    public final void metricRemoval(KafkaMetric metric) {}

    @Override
    public final void close() {}
}
