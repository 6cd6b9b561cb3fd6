package io.tcpsight.agent;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.agent.internal.http.MetricsText;
import io.tcpsight.agent.internal.listeners.ListenerMeters;
import io.tcpsight.agent.internal.telemetry.TelemetryIntake;
import io.tcpsight.agent.internal.telemetry.TelemetryMeters;
import io.tcpsight.internal.export.ConnectionMeters;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import java.util.List;

/** The Prometheus registry the endpoint serves: the connection meters and the agent's own beside them. */
final class EndpointMeters {
    private EndpointMeters() {}

    /** @param connectPacer null when pacing is off */
    static MetricsText prometheus(
            ConnectionMonitor monitor, ListenerMeters listeners, TelemetryIntake telemetry, ConnectPacer connectPacer) {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        for (MeterBinder meters : List.of(new ConnectionMeters(monitor), listeners, new TelemetryMeters(telemetry))) {
            meters.bindTo(prometheus);
        }
        if (connectPacer != null) {
            connectPacer.bindTo(prometheus);
        }
        return prometheus::scrape;
    }
}
