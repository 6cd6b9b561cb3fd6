package io.tcpsight.agent;

import io.tcpsight.agent.internal.telemetry.TelemetryIntake;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.telemetry.ClientTelemetry;
import org.apache.kafka.server.telemetry.ClientTelemetryPayload;
import org.apache.kafka.server.telemetry.ClientTelemetryReceiver;

/**
 * The broker's client telemetry receiver (KIP-714, Kafka 3.7 and later):
 * {@code metric.reporters=io.tcpsight.agent.TcpsightClientTelemetry} in {@code server.properties},
 * beside the agent's {@code -javaagent}. Listing it is what makes the broker offer telemetry to
 * clients; each push a client sends then reaches the agent, which keeps the client's own figures
 * on the connection the push came on. Kafka's own broker metrics are not read. Without the agent
 * in the JVM, pushes are dropped with one log line; a push never throws into Kafka.
 */
public final class TcpsightClientTelemetry implements MetricsReporter, ClientTelemetry, ClientTelemetryReceiver {
    private final AgentLog log = AgentLog.create();
    private volatile boolean toldNoAgent;

    @Override
    public void configure(Map<String, ?> configs) {
        TelemetryIntake intake = ClientTelemetryHandoff.intake();
        Object nodeId = configs.get("node.id");
        if (intake != null && nodeId != null) {
            try {
                intake.brokerNodeId(Integer.parseInt(nodeId.toString().trim()));
            } catch (NumberFormatException notANumber) {
                log.warn("tcpsight client telemetry: node.id=" + nodeId + " is not a number; a client's per-broker"
                        + " figures are not read");
            }
        }
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
    public ClientTelemetryReceiver clientReceiver() {
        return this;
    }

    @Override
    public void exportMetrics(AuthorizableRequestContext context, ClientTelemetryPayload payload) {
        try {
            TelemetryIntake intake = ClientTelemetryHandoff.intake();
            if (intake == null) {
                if (!toldNoAgent) {
                    toldNoAgent = true;
                    log.warn("tcpsight client telemetry: the tcpsight agent does not run in this broker (its"
                            + " -javaagent), so client pushes are dropped; Kafka is unaffected");
                }
                return;
            }
            intake.receive(
                    context,
                    payload.clientInstanceId() == null
                            ? null
                            : payload.clientInstanceId().toString(),
                    payload.contentType(),
                    payload.data());
        } catch (RuntimeException | LinkageError failure) {
            log.warn("tcpsight client telemetry: a push could not be read, Kafka is unaffected: " + failure);
        }
    }
}
