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

    /** Whether Kafka created a receiver in this JVM, before or after the agent started. */
    private static boolean receiverConfigured;

    /** The agent started: pushes reach its intake from now on. */
    static synchronized void publish(TelemetryIntake running) {
        intake = running;
        if (receiverConfigured) {
            running.receiverConfigured();
        }
    }

    /** Kafka configured a receiver (it lists one in metric.reporters): the running agent, or the next, learns so. */
    static synchronized void receiverConfigured() {
        receiverConfigured = true;
        if (intake != null) {
            intake.receiverConfigured();
        }
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
