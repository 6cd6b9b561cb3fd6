package io.tcpsight.connect.internal.observation;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tcpsight.connect.internal.policy.StartupPacer;
import io.tcpsight.connect.internal.state.PluginState;
import java.util.OptionalLong;
import java.util.function.ToDoubleFunction;

/**
 * The plugin's own meters beside the connection meters: task-start pacing and the config
 * provider's RTT. The pacing counters read through this object, which Micrometer holds weakly:
 * whoever binds it must keep it.
 */
final class WorkerMeters implements MeterBinder {
    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("tcpsight.startup.paced.builds", this, ignored -> pacer(StartupPacer::pacedBuilds))
                .description("task client builds that went through startup pacing")
                .register(registry);
        FunctionCounter.builder("tcpsight.startup.capped.builds", this, ignored -> pacer(StartupPacer::cappedBuilds))
                .description("task client builds that would have waited longer than tcpsight.startup.max.wait.ms")
                .register(registry);
        FunctionCounter.builder("tcpsight.startup.wait", this, ignored -> pacer(StartupPacer::waitedSeconds))
                .baseUnit("seconds")
                .description("time task client builds waited for pacing")
                .register(registry);
        Gauge.builder("tcpsight.provider.rtt", PluginState.worker().workerCluster(), tuning -> {
                    OptionalLong rttMicros = tuning.lastRttMicros();
                    return rttMicros.isPresent() ? rttMicros.getAsLong() / 1e6 : Double.NaN;
                })
                .baseUnit("seconds")
                .description("the RTT to the cluster the config provider sized fetches for")
                .register(registry);
    }

    /** 0 until the override policy made a pacer. */
    private static double pacer(ToDoubleFunction<StartupPacer> value) {
        return PluginState.worker().pacer().map(value::applyAsDouble).orElse(0.0);
    }
}
