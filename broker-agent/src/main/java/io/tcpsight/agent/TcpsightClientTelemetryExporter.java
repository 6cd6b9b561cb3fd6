package io.tcpsight.agent;

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
public final class TcpsightClientTelemetryExporter extends ClientTelemetryReporter
        implements ClientTelemetryExporterProvider, ClientTelemetryExporter {
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
