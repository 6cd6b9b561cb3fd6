package io.tcpsight.internal.pacing;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes callers wait their turn on a {@link TokenBucket}, never longer than a cap: a caller whose
 * turn lies past the cap goes ahead at once and is counted. The Connect plugin paces task client
 * builds with it (the herder's tick waits on them), the agent paces client connects.
 *
 * <p>A turn is a time to wake, and a thread may wake late: a collector's pause or a busy CPU holds
 * every waiting caller, and all whose turns fell inside it would wake and go together, the burst
 * pacing exists to prevent (a listen queue of 8 takes eight connects at once). So a caller takes
 * the spacing a second time when it wakes ({@link #releaseWait}), counted from when callers
 * actually go: on time it waits no more, late it goes one interval after the one before it.
 */
public final class Pacer {
    private final TokenBucket bucket;
    private final TokenBucket releases;
    private final double rate;
    private final long burst;
    private final long maxWaitNanos;
    private final AtomicLong paced = new AtomicLong();
    private final AtomicLong capped = new AtomicLong();
    private final AtomicLong waitedNanos = new AtomicLong();

    public Pacer(double permitsPerSecond, long burst, long maxWaitMillis) {
        this.bucket = new TokenBucket(permitsPerSecond, burst);
        this.releases = new TokenBucket(permitsPerSecond, burst);
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
        long start = System.nanoTime();
        long wait = turnWait(start);
        paced.incrementAndGet();
        if (wait < 0) {
            cap(onFirstCapped);
            return;
        }
        if (!sleep(wait)) {
            return;
        }
        long woke = System.nanoTime();
        long again = releaseWait(woke, start);
        if (again < 0) {
            cap(onFirstCapped);
            return;
        }
        sleep(again);
    }

    /** How long a caller arriving at {@code nowNanos} waits for its turn, or -1 past the cap. */
    long turnWait(long nowNanos) {
        return bucket.reserve(nowNanos, maxWaitNanos);
    }

    /**
     * How much longer a caller that arrived at {@code arrivedNanos} and woke at {@code wokeNanos}
     * waits so that it goes at least an interval after the caller before it (as many at once as
     * the burst allows), or -1 where that would take it past the cap.
     */
    long releaseWait(long wokeNanos, long arrivedNanos) {
        return releases.reserve(wokeNanos, Math.max(0, maxWaitNanos - (wokeNanos - arrivedNanos)));
    }

    private void cap(Runnable onFirstCapped) {
        if (capped.incrementAndGet() == 1) {
            onFirstCapped.run();
        }
    }

    /** Sleeps {@code nanos}; false when interrupted (the interrupt is kept for the caller's code). */
    private boolean sleep(long nanos) {
        if (nanos <= 0) {
            return true;
        }
        waitedNanos.addAndGet(nanos);
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
            return true;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return false;
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
