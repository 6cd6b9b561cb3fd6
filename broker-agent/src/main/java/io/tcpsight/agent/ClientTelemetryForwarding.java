package io.tcpsight.agent;

import io.tcpsight.agent.internal.telemetry.TelemetryIntake;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * What both receivers do with a push, in JDK types only: hand it to the running agent's intake,
 * or, without an agent in the JVM, drop it with one log line. Nothing escapes into Kafka.
 */
final class ClientTelemetryForwarding {
    private final AgentLog log = AgentLog.create();
    private volatile boolean toldNoAgent;

    /** The broker's node.id, from the configuration Kafka gives the receiver: per-broker figures are read for it. */
    void configure(Map<String, ?> configs) {
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

    void forward(Object requestContext, Object clientInstanceId, String contentType, ByteBuffer data) {
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
                    requestContext, clientInstanceId == null ? null : clientInstanceId.toString(), contentType, data);
        } catch (RuntimeException | LinkageError failure) {
            log.warn("tcpsight client telemetry: a push could not be read, Kafka is unaffected: " + failure);
        }
    }
}
