package io.tcpsight.internal.host;

import io.tcpsight.internal.model.HostSignals;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Reads the host's counters once per round and keeps the rises since the round before: the
 * {@link HostSignals} the rules judge. On the sampling thread only; {@link #latest} and
 * {@link #totals} may be read from others.
 */
public final class HostSignalWatch {
    private final HostSources sources;
    private final Consumer<String> warn;
    private final Set<String> reported = ConcurrentHashMap.newKeySet();
    private volatile HostCounters totals;
    private volatile HostSignals latest;

    public HostSignalWatch(HostSources sources, Consumer<String> warn) {
        this.sources = sources;
        this.warn = warn;
    }

    /** Reads now; the rises since the last read, empty at the first. */
    public Optional<HostSignals> next() {
        HostCounters before = totals;
        HostCounters now = HostCounters.read(sources, this::unreadable, before);
        totals = now;
        latest = before == null ? null : now.since(before);
        return Optional.ofNullable(latest);
    }

    public Optional<HostSignals> latest() {
        return Optional.ofNullable(latest);
    }

    /** The last reading's totals, for the meters; empty before the first round. */
    public Optional<HostCounters> totals() {
        return Optional.ofNullable(totals);
    }

    /** One line per source that cannot be read (at most 8), so a host without one stays quiet after. */
    private void unreadable(String what) {
        String kind = what.contains(":") ? what.substring(0, what.indexOf(':')) : what;
        if (reported.size() < 8 && reported.add(kind)) {
            warn.accept("tcpsight: cannot read the host's " + what
                    + "; the host findings go on without it (reported once)");
        }
    }
}
