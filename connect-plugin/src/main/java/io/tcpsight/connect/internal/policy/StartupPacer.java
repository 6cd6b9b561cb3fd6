package io.tcpsight.connect.internal.policy;

import io.tcpsight.internal.model.LogText;
import io.tcpsight.internal.pacing.Pacer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spaces out the builds of task clients across the whole worker JVM. A task connects on its
 * first poll right after its build, so spacing builds spaces the SYNs a broker's listen queue
 * has to absorb. No wait ever exceeds the configured cap: builds run on the start/stop executor
 * the herder's tick waits on.
 */
public final class StartupPacer {
    private static final Logger LOG = LoggerFactory.getLogger(StartupPacer.class);

    private final Pacer pacer;

    public StartupPacer(double permitsPerSecond, long burst, long maxWaitMillis) {
        this.pacer = new Pacer(permitsPerSecond, burst, maxWaitMillis);
    }

    /** Whether this pacer runs with this configuration. */
    public boolean configuredAs(double permitsPerSecond, long burst, long maxWaitMillis) {
        return pacer.rate() == permitsPerSecond && pacer.burst() == burst && pacer.maxWaitMillis() == maxWaitMillis;
    }

    /** Waits for this build's turn, at most the cap. An interrupt ends the wait and is kept. */
    public void pace(String what) {
        pacer.pace(() -> LOG.warn(
                "tcpsight pacing: {} would wait more than {} ms (tcpsight.startup.max.wait.ms); it goes ahead unpaced."
                        + " More builds than tcpsight.startup.max.clients.per.second={} allows are queued; later ones are counted only",
                LogText.oneLine(what),
                pacer.maxWaitMillis(),
                pacer.rate()));
    }

    public long pacedBuilds() {
        return pacer.paced();
    }

    public long cappedBuilds() {
        return pacer.capped();
    }

    public double waitedSeconds() {
        return pacer.waitedSeconds();
    }
}
