package io.tcpsight.connect.internal.state;

import io.tcpsight.connect.internal.policy.StartupPacer;
import io.tcpsight.connect.internal.provider.ClusterTuning;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the plugin's three types share in one worker JVM, as one object. Connect creates the
 * config provider, the override policy and the REST extension each on its own and hands them
 * nothing of one another; what they share lives here, one instance per plugin class loader:
 * the worker cluster's tuning (measured once, handed out by the provider, read by the policy and
 * the meters), the startup pacer (configured by the policy, counted by the meters), and the RTT
 * the worker's observation last measured to its own cluster (the policy's judgement of buffer
 * overrides at validation, before a connector's clients exist).
 */
public final class PluginState {
    private static final PluginState WORKER = new PluginState();

    private final ClusterTuning workerCluster = new ClusterTuning();
    private volatile StartupPacer pacer;
    private volatile long workerPathRttMicros = -1;

    private PluginState() {}

    /** This worker JVM's state (one per plugin class loader). */
    public static PluginState worker() {
        return WORKER;
    }

    /** The tuning for the worker's own cluster, ${tcpsight:fetch:KEY}. */
    public ClusterTuning workerCluster() {
        return workerCluster;
    }

    /** The pacer with this configuration: the same one while the configuration stays (one worker, one policy config). */
    public synchronized StartupPacer pacer(double permitsPerSecond, long burst, long maxWaitMillis) {
        StartupPacer current = pacer;
        if (current == null || !current.configuredAs(permitsPerSecond, burst, maxWaitMillis)) {
            current = new StartupPacer(permitsPerSecond, burst, maxWaitMillis);
            pacer = current;
        }
        return current;
    }

    /** The pacer in use; empty before the policy was configured with pacing. */
    public Optional<StartupPacer> pacer() {
        return Optional.ofNullable(pacer);
    }

    public void workerPathMeasured(long rttMicros) {
        if (rttMicros > 0) {
            workerPathRttMicros = rttMicros;
        }
    }

    /** The worker's slowest broker path as last sampled; empty before the first sample. */
    public OptionalLong workerPathRttMicros() {
        long value = workerPathRttMicros;
        return value > 0 ? OptionalLong.of(value) : OptionalLong.empty();
    }
}
