package io.tcpsight.internal.pacing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class TokenBucketTest {
    private static final long MS = 1_000_000L;

    @Test
    void aBurstGoesAtOnceThenPermitsAreSpacedByTheInterval() {
        TokenBucket bucket = new TokenBucket(10, 3); // one per 100 ms, three back to back
        assertEquals(0, bucket.reserve(0, 10_000 * MS));
        assertEquals(0, bucket.reserve(0, 10_000 * MS));
        assertEquals(0, bucket.reserve(0, 10_000 * MS));
        assertEquals(100 * MS, bucket.reserve(0, 10_000 * MS));
        assertEquals(200 * MS, bucket.reserve(0, 10_000 * MS));
    }

    @Test
    void idleTimeRefillsButNeverBeyondTheBurst() {
        TokenBucket bucket = new TokenBucket(10, 2);
        bucket.reserve(0, 0);
        bucket.reserve(0, 0);
        long later = 10_000 * MS; // long idle: only the burst of 2 is available again
        assertEquals(0, bucket.reserve(later, 0));
        assertEquals(0, bucket.reserve(later, 0));
        assertEquals(100 * MS, bucket.reserve(later, 1_000 * MS));
    }

    @Test
    void aWaitAboveTheCapIsRefusedWithoutTakingASlot() {
        TokenBucket bucket = new TokenBucket(1, 1);
        assertEquals(0, bucket.reserve(0, 0));
        assertEquals(-1, bucket.reserve(0, 500 * MS)); // would be 1 s
        assertEquals(1_000 * MS, bucket.reserve(0, 2_000 * MS)); // the refused call did not push the schedule
    }

    @Test
    void nonsenseRatesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new TokenBucket(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new TokenBucket(1, 0));
    }
}
