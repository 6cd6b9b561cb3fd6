package io.tcpsight.agent.internal.telemetry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The push counts exist where Kafka created a receiver (a broker), and nowhere else (a Connect worker). */
class TelemetryMetersTest {
    @Test
    void theCountsAppearOnceAReceiverIsConfiguredAndNotBefore() {
        TelemetryIntake intake = new TelemetryIntake(context -> Optional.empty(), (where, failure) -> {});
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new TelemetryMeters(intake).bindTo(registry);
        assertEquals(
                0,
                registry.find("tcpsight.client.telemetry.pushes")
                        .functionCounters()
                        .size(),
                "no receiver yet");

        intake.receiverConfigured();
        intake.receiverConfigured(); // Kafka may configure a reporter again: registered once

        assertEquals(
                4,
                registry.find("tcpsight.client.telemetry.pushes")
                        .functionCounters()
                        .size());
        SimpleMeterRegistry later = new SimpleMeterRegistry();
        new TelemetryMeters(intake).bindTo(later);
        assertEquals(
                4,
                later.find("tcpsight.client.telemetry.pushes")
                        .functionCounters()
                        .size(),
                "bound after: at once");
    }
}
