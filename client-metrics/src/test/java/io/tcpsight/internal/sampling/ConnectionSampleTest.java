package io.tcpsight.internal.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.IntervalStats;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The kernel's 32-bit fields held in ints: their whole range, unknown kept unknown; an interval in
 * which nothing rose is kept as its length alone.
 */
class ConnectionSampleTest {
    @Test
    void thirtyTwoBitFieldsKeepTheirValuesAndUnknownStaysEmpty() {
        ConnectionSample sample = ConnectionSample.at(1)
                .rtt(100_000, -1)
                .windows(2_000_000, 1L << 30, -1)
                .sndMss(1448)
                .counters(123_456, 7, 8, 9)
                .queues(OptionalLong.empty(), OptionalLong.of(65_536))
                .windowScales(14, 7)
                .build();
        assertEquals(100_000, sample.rttMicros());
        assertTrue(sample.minRttMicros().isEmpty());
        assertEquals(2_000_000, sample.sndCwnd());
        assertEquals(1L << 30, sample.sndWindowBytes().getAsLong(), "the largest scaled window");
        assertTrue(sample.rcvWindowBytes().isEmpty());
        assertEquals(1448, sample.sndMssBytes());
        assertEquals(123_456, sample.totalRetrans());
        assertTrue(sample.unreadBytes().isEmpty());
        assertEquals(65_536, sample.unackedBytes().getAsLong());
        assertEquals(14, sample.sndWindowScale());
        assertEquals(7, sample.rcvWindowScale());
    }

    @Test
    void aValueBeyondAnIntIsHeldAtItsMaximumNotWrappedNegative() {
        ConnectionSample sample = ConnectionSample.at(1)
                .rtt(0xFFFF_FFF0L, 5)
                .windows(10, 0xFFFF_FFFFL, 0)
                .build();
        assertEquals(Integer.MAX_VALUE, sample.rttMicros());
        assertEquals(Integer.MAX_VALUE, sample.sndWindowBytes().getAsLong());
        assertEquals(5, sample.minRttMicros().getAsLong());
    }

    /** A sample at {@code nanoTime} whose received bytes stand at {@code received}, its other counters as at first. */
    private static ConnectionSample.Builder sampleAt(long nanoTime, long received) {
        return ConnectionSample.at(nanoTime).limitedTimes(500, 100, 0).counters(2, 40, 9_000, received);
    }

    @Test
    void anIntervalInWhichNothingRoseKeepsNoObjectYetReadsAsZeroRisesOverItsLength() {
        ConnectionSample first = sampleAt(1_000_000_000L, 3_000).build();
        ConnectionSample idle = sampleAt(3_500_000_000L, 3_000).after(first).build();

        assertTrue(first.interval().isEmpty(), "a first sample has no interval");
        assertTrue(first.intervalStartNanos().isEmpty());
        assertNull(idle.moved, "an idle interval keeps no IntervalStats");
        assertFalse(idle.movedInInterval());
        assertFalse(first.movedInInterval());
        IntervalStats interval = idle.interval().orElseThrow();
        assertEquals(2.5, interval.seconds(), 1e-12);
        assertEquals(0, interval.busyMicros());
        assertEquals(0, interval.segmentsOut());
        assertEquals(0, interval.bytesAcked());
        assertEquals(0, interval.bytesReceived());
        assertEquals(0, interval.retransmittedSegments());
        assertEquals(1_000_000_000L, idle.intervalStartNanos().getAsLong());
    }

    @Test
    void anIntervalInWhichOneCounterRoseKeepsEveryRise() {
        ConnectionSample first = sampleAt(1_000_000_000L, 3_000).build();
        ConnectionSample received = sampleAt(2_000_000_000L, 3_100)
                .after(first)
                .intervalFrom(1_250_000_000L)
                .build();

        assertNotNull(received.moved);
        assertTrue(received.movedInInterval());
        IntervalStats interval = received.interval().orElseThrow();
        assertEquals(0.75, interval.seconds(), 1e-12, "counted from where the interval was carried");
        assertEquals(100, interval.bytesReceived());
        assertEquals(0, interval.bytesAcked());
        assertEquals(1_250_000_000L, received.intervalStartNanos().getAsLong());
    }
}
