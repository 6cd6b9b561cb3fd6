package io.tcpsight.connect;

import java.util.OptionalLong;

/**
 * The RTT the REST extension last measured to the worker's own cluster (its slowest broker path),
 * for the override policy, which judges a connector's buffer overrides at validation, before its
 * clients exist: the measured path, not the tcpsight.rule.min.rtt.ms floor, once the worker has
 * sampled. Shared through the plugin's class loader, as the plugin types share their other state.
 */
final class WorkerPathRtt {
    private static volatile long lastMicros = -1;

    private WorkerPathRtt() {}

    static void measured(long rttMicros) {
        if (rttMicros > 0) {
            lastMicros = rttMicros;
        }
    }

    static OptionalLong lastMicros() {
        long value = lastMicros;
        return value > 0 ? OptionalLong.of(value) : OptionalLong.empty();
    }
}
