package io.tcpsight.agent.internal.telemetry;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tcpsight.agent.internal.telemetry.TelemetryIntake.Outcome;

/**
 * The intake's counts on the endpoint: {@code tcpsight_client_telemetry_pushes_total{outcome}}, four
 * series, registered once Kafka configured a receiver (a broker that lists it), never elsewhere.
 */
public final class TelemetryMeters implements MeterBinder {
    private final TelemetryIntake intake;

    public TelemetryMeters(TelemetryIntake intake) {
        this.intake = intake;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        intake.whenReceiving(() -> register(registry));
    }

    private void register(MeterRegistry registry) {
        for (Outcome outcome : Outcome.values()) {
            FunctionCounter.builder("tcpsight.client.telemetry.pushes", intake, counted -> counted.count(outcome))
                    .description("Client telemetry pushes (KIP-714) the broker's receiver handed to tcpsight, by"
                            + " outcome: joined to the connection they came on, unjoined, malformed, oversized")
                    .tag("outcome", outcome.tag())
                    .register(registry);
        }
    }
}
