package io.tcpsight.agent;

import io.tcpsight.agent.internal.telemetry.TelemetryIntake;

/**
 * Hands the running agent's telemetry intake to the receiver Kafka creates from
 * {@code metric.reporters}. Both load from the agent's jar on the broker's class path; this class
 * names no Kafka type, so the agent starts on a broker whose Kafka has no client telemetry (3.6).
 */
final class ClientTelemetryHandoff {
    private static volatile TelemetryIntake intake;

    private ClientTelemetryHandoff() {}

    /** The agent started: pushes reach its intake from now on. */
    static synchronized void publish(TelemetryIntake running) {
        intake = running;
    }

    /** The agent that published this intake stopped: pushes are dropped, unless another agent published since. */
    static synchronized void withdraw(TelemetryIntake stopped) {
        if (intake == stopped) {
            intake = null;
        }
    }

    /** The agent's intake; null when the agent does not run in this JVM. */
    static TelemetryIntake intake() {
        return intake;
    }
}
