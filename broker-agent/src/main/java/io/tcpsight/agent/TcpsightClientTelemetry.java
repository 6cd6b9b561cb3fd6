package io.tcpsight.agent;

import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.telemetry.ClientTelemetry;
import org.apache.kafka.server.telemetry.ClientTelemetryPayload;
import org.apache.kafka.server.telemetry.ClientTelemetryReceiver;

/**
 * The broker's client telemetry receiver (KIP-714) for Kafka 3.7 to 4.1:
 * {@code metric.reporters=org.apache.kafka.common.metrics.JmxReporter,io.tcpsight.agent.TcpsightClientTelemetry}
 * in {@code server.properties}, beside the agent's {@code -javaagent}. Listing it is what makes the
 * broker offer telemetry to clients; each push a client sends then reaches the agent, which keeps
 * the client's own figures on the connection the push came on. Kafka's own broker metrics are not
 * read. Kafka 4.2 and later call {@link TcpsightClientTelemetryExporter} through the interface that
 * replaces this one (this one still works there, deprecated).
 */
@SuppressWarnings("removal") // ClientTelemetry: the only interface Kafka 3.7-4.1 offer
public final class TcpsightClientTelemetry extends ClientTelemetryReporter
        implements ClientTelemetry, ClientTelemetryReceiver {
    @Override
    public ClientTelemetryReceiver clientReceiver() {
        return this;
    }

    @Override
    public void exportMetrics(AuthorizableRequestContext context, ClientTelemetryPayload payload) {
        forwarding.forward(context, payload.clientInstanceId(), payload.contentType(), payload.data());
    }
}
