package io.tcpsight.connect;

import io.tcpsight.model.LogText;
import io.tcpsight.pacing.Pacer;
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
    private static volatile StartupPacer shared;

    private final Pacer pacer;

    StartupPacer(double permitsPerSecond, long burst, long maxWaitMillis) {
        this.pacer = new Pacer(permitsPerSecond, burst, maxWaitMillis);
    }

    /** The pacer of this worker JVM; the first configuration wins (one worker, one policy config). */
    static synchronized StartupPacer shared(double permitsPerSecond, long burst, long maxWaitMillis) {
        if (shared == null
                || shared.pacer.rate() != permitsPerSecond
                || shared.pacer.burst() != burst
                || shared.pacer.maxWaitMillis() != maxWaitMillis) {
            shared = new StartupPacer(permitsPerSecond, burst, maxWaitMillis);
        }
        return shared;
    }

    /** The pacer in use, or null before the policy was configured. */
    public static StartupPacer current() {
        return shared;
    }

    /** Waits for this build's turn, at most the cap. An interrupt ends the wait and is kept. */
    void pace(String what) {
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
