package io.tcpsight.internal.pacing;

/**
 * A token bucket in its "theoretical arrival time" form: each permit owns a slot one interval
 * after the previous one, and up to {@code burst} permits may be taken ahead of their slot.
 * Pure arithmetic on a caller's clock, so it is tested without sleeping. Shared by the Connect
 * plugin's build pacing and the agent's connect pacing.
 */
public final class TokenBucket {
    private final long intervalNanos;
    private final long burstAllowanceNanos;
    private long theoreticalArrival = Long.MIN_VALUE;

    public TokenBucket(double permitsPerSecond, long burst) {
        if (!(permitsPerSecond > 0) || burst < 1) {
            throw new IllegalArgumentException(
                    "rate must be > 0 and burst >= 1, got " + permitsPerSecond + " and " + burst);
        }
        this.intervalNanos = Math.max(1, (long) (1e9 / permitsPerSecond));
        this.burstAllowanceNanos = (burst - 1) * intervalNanos;
    }

    /**
     * Reserves a permit at {@code nowNanos}: returns how long the caller must wait for it, 0 when
     * it may go at once, or -1 when the wait would exceed {@code maxWaitNanos} (then nothing is
     * reserved, so one long queue never pushes every later caller past the cap).
     */
    public synchronized long reserve(long nowNanos, long maxWaitNanos) {
        long arrival = theoreticalArrival == Long.MIN_VALUE || theoreticalArrival - nowNanos < 0
                ? nowNanos
                : theoreticalArrival;
        long wait = Math.max(0, arrival - burstAllowanceNanos - nowNanos);
        if (wait > maxWaitNanos) {
            return -1;
        }
        theoreticalArrival = arrival + intervalNanos;
        return wait;
    }
}
