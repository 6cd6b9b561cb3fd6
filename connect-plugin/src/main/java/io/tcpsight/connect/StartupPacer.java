package io.tcpsight.connect;

import io.tcpsight.connection.TokenBucket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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

    private final TokenBucket bucket;
    private final long maxWaitNanos;
    private final double rate;
    private final long burst;
    private final AtomicLong paced = new AtomicLong();
    private final AtomicLong waitedNanos = new AtomicLong();
    private final AtomicLong capped = new AtomicLong();

    StartupPacer(double permitsPerSecond, long burst, long maxWaitMillis) {
        this.bucket = new TokenBucket(permitsPerSecond, burst);
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(maxWaitMillis);
        this.rate = permitsPerSecond;
        this.burst = burst;
    }

    /** The pacer of this worker JVM; the first configuration wins (one worker, one policy config). */
    static synchronized StartupPacer shared(double permitsPerSecond, long burst, long maxWaitMillis) {
        if (shared == null || shared.rate != permitsPerSecond || shared.burst != burst
                || shared.maxWaitNanos != TimeUnit.MILLISECONDS.toNanos(maxWaitMillis)) {
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
        long wait = bucket.reserve(System.nanoTime(), maxWaitNanos);
        paced.incrementAndGet();
        if (wait < 0) {
            if (capped.incrementAndGet() == 1) {
                LOG.warn("tcpsight pacing: {} would wait more than {} ms (tcpsight.startup.max.wait.ms); it goes ahead unpaced."
                        + " More builds than tcpsight.startup.max.clients.per.second={} allows are queued; later ones are counted only",
                        what, TimeUnit.NANOSECONDS.toMillis(maxWaitNanos), rate);
            }
            return;
        }
        if (wait > 0) {
            waitedNanos.addAndGet(wait);
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public long pacedBuilds() {
        return paced.get();
    }

    public long cappedBuilds() {
        return capped.get();
    }

    public double waitedSeconds() {
        return waitedNanos.get() / 1e9;
    }
}
