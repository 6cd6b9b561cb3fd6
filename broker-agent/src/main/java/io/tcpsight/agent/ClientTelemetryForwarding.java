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

    /** This broker's node.id (broker.id on a ZooKeeper broker); -1 until Kafka configured the receiver. */
    private volatile int brokerNodeId = -1;

    /**
     * The broker's node.id, from the configuration Kafka gives the receiver: kept here and handed on
     * with every push, so an agent that starts (or attaches) after Kafka configured the receiver reads
     * per-broker figures too.
     */
    void configure(Map<String, ?> configs) {
        ClientTelemetryHandoff.receiverConfigured();
        Object nodeId = configs.get("node.id") != null ? configs.get("node.id") : configs.get("broker.id");
        if (nodeId == null) {
            return;
        }
        try {
            brokerNodeId = Integer.parseInt(nodeId.toString().trim());
        } catch (NumberFormatException notANumber) {
            log.warn("tcpsight client telemetry: node.id=" + nodeId + " is not a number; a client's per-broker"
                    + " figures are not read");
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
                    requestContext,
                    brokerNodeId,
                    clientInstanceId == null ? null : clientInstanceId.toString(),
                    contentType,
                    data);
        } catch (RuntimeException | LinkageError failure) {
            log.warn("tcpsight client telemetry: a push could not be read, Kafka is unaffected: " + failure);
        }
    }
}
