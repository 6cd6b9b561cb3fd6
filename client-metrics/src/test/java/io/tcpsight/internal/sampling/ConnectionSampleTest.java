package io.tcpsight.internal.sampling;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.tcp.TcpOptions;
import io.tcpsight.internal.tcp.TcpState;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
        assertTrue(sample.deliveryRateBytesPerSecond().isEmpty(), "unknown");
    }

    /** The window scales share a byte, each whole from 0 to 15; a delivery rate of any size reads to one part in 10^7. */
    @Test
    void windowScalesAndADeliveryRateReadAsTheKernelGaveThem() {
        ConnectionSample sample = ConnectionSample.at(1)
                .windowScales(15, 9)
                .deliveryRate(12_345_678_901L)
                .build();
        assertEquals(15, sample.sndWindowScale());
        assertEquals(9, sample.rcvWindowScale());
        assertEquals(12_345_678_901L, sample.deliveryRateBytesPerSecond().getAsLong(), 12_345_678_901L * 1e-7);
        ConnectionSample other =
                ConnectionSample.at(1).windowScales(0, 15).deliveryRate(0).build();
        assertEquals(0, other.sndWindowScale());
        assertEquals(15, other.rcvWindowScale());
        assertEquals(0, other.deliveryRateBytesPerSecond().getAsLong());
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
        return withCounters(nanoTime, new long[] {500, 100, 0, 2, 40, 9_000, received});
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
    void aCarriedIntervalCountsFromWhereItWasCarried() {
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

    /**
     * Each counter alone: a rise of any one of them makes the interval one that moved, kept with
     * that rise and no other, so that a connection that only retransmitted, or was only busy, is
     * never read as idle.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6})
    void aRiseOfAnyOneCounterAloneIsKept(int counter) {
        long[] before = {500, 100, 50, 2, 40, 9_000, 3_000};
        long[] after = before.clone();
        after[counter] += 7;
        IntervalStats interval = intervalBetween(before, after);
        long[] rises = {
            interval.busyMicros(),
            interval.rwndLimitedMicros(),
            interval.sndbufLimitedMicros(),
            interval.retransmittedSegments(),
            interval.segmentsOut(),
            interval.bytesAcked(),
            interval.bytesReceived()
        };
        long[] expected = new long[7];
        expected[counter] = 7;
        assertArrayEquals(expected, rises, "counter " + counter);
    }

    @Test
    void anUnknownCounterIsNoRiseAndTheSegmentCountWrapsAt32Bits() {
        long[] known = {500, 100, 50, 2, 40, 9_000, 3_000};
        long[] unknown = {-1, -1, -1, -1, 40, -1, -1};
        ConnectionSample becameKnown = aSecondAfter(unknown, known);
        ConnectionSample becameUnknown = aSecondAfter(known, unknown);
        assertFalse(becameKnown.movedInInterval(), "from unknown to known is no rise");
        assertFalse(becameUnknown.movedInInterval(), "from known to unknown is no rise");

        long[] beforeWrap = {500, 100, 50, 2, 0xFFFF_FFF0L, 9_000, 3_000};
        long[] afterWrap = {500, 100, 50, 2, 0x10, 9_000, 3_000};
        ConnectionSample wrapped = aSecondAfter(beforeWrap, afterWrap);
        assertTrue(wrapped.movedInInterval());
        assertEquals(0x20, wrapped.interval().orElseThrow().segmentsOut());
    }

    /**
     * The busy and limited times are 64-bit microsecond counters in the kernel, kept by their low 32 bits: a
     * rise across a multiple of 2^32 (71 minutes of busy time since the socket opened) reads as the rise.
     */
    @Test
    void aMicrosecondCounterBeyond32BitsRisesByItsRiseAcrossTheBoundary() {
        long[] before = {0x2_FFFF_FF00L, 0x1_FFFF_FFFFL, 0xFFFF_FFF0L, 2, 40, 9_000, 3_000};
        long[] after = {0x3_0000_0100L, 0x2_0000_0003L, 0x1_0000_0010L, 2, 40, 9_000, 3_000};
        IntervalStats interval = intervalBetween(before, after);
        assertEquals(0x200, interval.busyMicros());
        assertEquals(4, interval.rwndLimitedMicros());
        assertEquals(0x20, interval.sndbufLimitedMicros());
    }

    /**
     * A time counter that fell (a socket replaced under the same descriptor) is no rise, as a reset 64-bit
     * counter is: its low 32 bits would read it as some 71 minutes of busy time in a second's interval.
     * A rise across 2^31 is a rise: the bits are unsigned.
     */
    @Test
    void aTimeCounterThatFellIsNoRiseAndOneAcross2To31Is() {
        long[] before = {5_000_000, 4_000_000, 3_000_000, 2, 40, 9_000, 3_000};
        long[] fell = {1_000, 4_000_100, 3_000_000, 2, 40, 9_000, 3_000};
        IntervalStats afterTheFall = intervalBetween(before, fell);
        assertEquals(0, afterTheFall.busyMicros(), "a fall is no rise");
        assertEquals(100, afterTheFall.rwndLimitedMicros(), "the other counters rise as they rose");

        long[] belowHalf = {0x7FFF_FF00L, 0x7FFF_FFFFL, 2, 2, 40, 9_000, 3_000};
        long[] aboveHalf = {0x8000_0100L, 0x8000_0001L, 2, 2, 40, 9_000, 3_000};
        IntervalStats across = intervalBetween(belowHalf, aboveHalf);
        assertEquals(0x200, across.busyMicros());
        assertEquals(2, across.rwndLimitedMicros());
    }

    /** Each time counter's known bit is its own: one unknown alone leaves the others' rises. */
    @Test
    void eachTimeCounterIsKnownOnItsOwn() {
        long[] before = {1_000, 2_000, 3_000, 2, 40, 9_000, 3_000};
        for (int counter = 0; counter < 3; counter++) {
            long[] after = {1_100, 2_100, 3_100, 2, 40, 9_000, 3_000};
            after[counter] = -1;
            IntervalStats interval = intervalBetween(before, after);
            long[] rises = {interval.busyMicros(), interval.rwndLimitedMicros(), interval.sndbufLimitedMicros()};
            long[] expected = {100, 100, 100};
            expected[counter] = 0;
            assertArrayEquals(expected, rises, "counter " + counter + " unknown");
        }
    }

    @Test
    void theStateAndOptionsReadAsTheKernelGaveThem() {
        ConnectionSample sample = ConnectionSample.at(1)
                .state(TcpState.CLOSE_WAIT)
                .options(TcpOptions.of(0xFF))
                .build();
        assertEquals(TcpState.CLOSE_WAIT, sample.state());
        assertEquals(0xFF, sample.options().bits());
        ConnectionSample established = ConnectionSample.at(1)
                .state(TcpState.ESTABLISHED)
                .options(TcpOptions.of(0x05))
                .build();
        assertEquals(TcpState.ESTABLISHED, established.state());
        assertEquals(0x05, established.options().bits());
    }

    @Test
    void aSampleKnowsTheSegmentsItSawByTheirLow32Bits() {
        ConnectionSample sample =
                withCounters(1, new long[] {1, 1, 1, 1, 0xFFFF_FFFEL, 1, 1}).build();
        assertTrue(sample.sentSegments(0xFFFF_FFFEL));
        assertFalse(sample.sentSegments(0xFFFF_FFFDL));
        assertFalse(sample.sentSegments(-1), "an unknown count is not this one");
        ConnectionSample unknown =
                withCounters(1, new long[] {1, 1, 1, 1, -1, 1, 1}).build();
        assertFalse(unknown.sentSegments(0xFFFF_FFFFL), "an unknown count equals nothing, not its bits");
    }

    /** A sample with the counters {@code after}, a second after one with the counters {@code before}. */
    private static ConnectionSample aSecondAfter(long[] before, long[] after) {
        return withCounters(2_000_000_000L, after)
                .after(withCounters(1_000_000_000L, before).build())
                .build();
    }

    /** The interval between a sample with the counters {@code before} and one a second later with {@code after}. */
    private static IntervalStats intervalBetween(long[] before, long[] after) {
        return aSecondAfter(before, after).interval().orElseThrow();
    }

    /** busy, rwnd-limited, sndbuf-limited, retransmits, segments out, bytes acked, bytes received. */
    private static ConnectionSample.Builder withCounters(long nanoTime, long[] counters) {
        return ConnectionSample.at(nanoTime)
                .limitedTimes(counters[0], counters[1], counters[2])
                .counters(counters[3], counters[4], counters[5], counters[6]);
    }
}
