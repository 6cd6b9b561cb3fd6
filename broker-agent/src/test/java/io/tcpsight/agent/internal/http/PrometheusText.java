package io.tcpsight.agent.internal.http;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.internal.export.ConnectionMeters;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import java.util.List;

/** A registry as the agent builds one for its endpoint: the connection meters and the given ones. */
final class PrometheusText {
    private PrometheusText() {}

    static MetricsText of(ConnectionMonitor monitor, List<MeterBinder> meters) {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new ConnectionMeters(monitor).bindTo(prometheus);
        meters.forEach(binder -> binder.bindTo(prometheus));
        return prometheus::scrape;
    }
}
