package io.tcpsight.agent;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.server.telemetry.ClientTelemetryContext;
import org.apache.kafka.server.telemetry.ClientTelemetryExporter;
import org.apache.kafka.server.telemetry.ClientTelemetryExporterProvider;
import org.apache.kafka.server.telemetry.ClientTelemetryPayload;

/**
 * The broker's client telemetry exporter (KIP-714) for Kafka 4.2 and later, through the interface
 * that replaces {@link TcpsightClientTelemetry}'s:
 * {@code metric.reporters=org.apache.kafka.common.metrics.JmxReporter,io.tcpsight.agent.TcpsightClientTelemetryExporter}.
 * The same as the receiver in all else; on Kafka 4.1 and earlier this class does not load (its
 * interface is not there) and the broker says so at start.
 */
public final class TcpsightClientTelemetryExporter
        implements MetricsReporter, ClientTelemetryExporterProvider, ClientTelemetryExporter {
    private final ClientTelemetryForwarding forwarding = new ClientTelemetryForwarding();

    @Override
    public void configure(Map<String, ?> configs) {
        forwarding.configure(configs);
    }

    @Override
    public void init(List<KafkaMetric> metrics) {
        // the broker's own metrics are not read
    }

    @Override
    public void metricChange(KafkaMetric metric) {}

    @Override
    public void metricRemoval(KafkaMetric metric) {}

    @Override
    public void close() {}

    @Override
    public ClientTelemetryExporter clientTelemetryExporter() {
        return this;
    }

    @Override
    public void exportMetrics(ClientTelemetryContext context, ClientTelemetryPayload payload) {
        forwarding.forward(
                context.authorizableRequestContext(),
                payload.clientInstanceId(),
                payload.contentType(),
                payload.data());
    }
}
