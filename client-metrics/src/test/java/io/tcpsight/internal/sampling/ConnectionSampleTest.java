package io.tcpsight.internal.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The kernel's 32-bit fields held in ints: their whole range, unknown kept unknown. */
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
}
