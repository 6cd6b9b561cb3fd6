package io.tcpsight.internal.pacing;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes callers wait their turn on a {@link TokenBucket}, never longer than a cap: a caller whose
 * turn lies past the cap goes ahead at once and is counted. The Connect plugin paces task client
 * builds with it (the herder's tick waits on them), the agent paces client connects.
 */
public final class Pacer {
    private final TokenBucket bucket;
    private final double rate;
    private final long burst;
    private final long maxWaitNanos;
    private final AtomicLong paced = new AtomicLong();
    private final AtomicLong capped = new AtomicLong();
    private final AtomicLong waitedNanos = new AtomicLong();

    public Pacer(double permitsPerSecond, long burst, long maxWaitMillis) {
        this.bucket = new TokenBucket(permitsPerSecond, burst);
        this.rate = permitsPerSecond;
        this.burst = burst;
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(maxWaitMillis);
    }

    /**
     * Waits for this caller's turn, at most the cap. An interrupt ends the wait and is kept for the
     * caller's code to see. {@code onFirstCapped} runs once, for the first caller that went ahead
     * unpaced, so that the reason is logged once.
     */
    public void pace(Runnable onFirstCapped) {
        long wait = bucket.reserve(System.nanoTime(), maxWaitNanos);
        paced.incrementAndGet();
        if (wait < 0) {
            if (capped.incrementAndGet() == 1) {
                onFirstCapped.run();
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

    public double rate() {
        return rate;
    }

    public long burst() {
        return burst;
    }

    public long maxWaitMillis() {
        return TimeUnit.NANOSECONDS.toMillis(maxWaitNanos);
    }

    public long paced() {
        return paced.get();
    }

    public long capped() {
        return capped.get();
    }

    public double waitedSeconds() {
        return waitedNanos.get() / 1e9;
    }
}
