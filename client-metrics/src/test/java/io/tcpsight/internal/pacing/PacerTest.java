package io.tcpsight.internal.pacing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pacer's two steps on a caller's clock: the turn a caller gets when it arrives, and the
 * release it takes when it wakes. Eight callers arrive at once at 20 per second (a slot every
 * 50 ms, no burst), so their turns fall at 0, 50, ..., 350 ms.
 */
class PacerTest {
    private static final long MS = 1_000_000L;
    private static final int CALLERS = 8;

    /** Each caller woke when its turn came: the release adds nothing, they go 50 ms apart. */
    @Test
    void callersWokenOnTimeGoAtTheirTurnsAndWaitNoMore() {
        Pacer pacer = new Pacer(20, 1, 5_000);
        List<Long> turns = arriveAtOnce(pacer);
        List<Long> gone = new ArrayList<>();
        for (long turn : turns) {
            long release = pacer.releaseWait(turn, 0);
            assertEquals(0, release, "a caller on time waits no more");
            gone.add(turn + release);
        }
        assertEquals(List.of(0L, 50L, 100L, 150L, 200L, 250L, 300L, 350L), millis(gone));
    }

    /**
     * A pause of 300 ms (a collector's, or a CPU busy elsewhere) holds every caller whose turn fell
     * inside it, and they all wake at 300 ms: seven of them would go at once, a burst of seven
     * connects. Released one interval apart, they go at 300, 350, ..., 600 ms, and the eighth, woken
     * at its own 350 ms turn, after them.
     */
    @Test
    void callersWokenTogetherByAPauseGoOneIntervalApart() {
        Pacer pacer = new Pacer(20, 1, 5_000);
        List<Long> turns = arriveAtOnce(pacer);
        long pauseEnd = 300 * MS;
        List<Long> gone = new ArrayList<>();
        for (long turn : turns) {
            long woke = Math.max(turn, pauseEnd);
            gone.add(woke + pacer.releaseWait(woke, 0));
        }
        assertEquals(List.of(300L, 350L, 400L, 450L, 500L, 550L, 600L, 650L), millis(gone));
    }

    /** The release never takes a caller past the cap: one that would wait beyond it goes at once (-1). */
    @Test
    void aReleasePastTheCapGoesAheadUnpaced() {
        Pacer pacer = new Pacer(20, 1, 100);
        assertEquals(0, pacer.turnWait(0));
        assertEquals(50 * MS, pacer.turnWait(0));
        assertEquals(0, pacer.releaseWait(80 * MS, 0));
        // woken 80 ms after arriving, with 20 ms of the cap left and a release 50 ms away
        assertEquals(-1, pacer.releaseWait(80 * MS, 0));
        // the refused release took no slot: the next caller, arrived later, goes at the slot it had
        assertEquals(50 * MS, pacer.releaseWait(80 * MS, 80 * MS));
    }

    private static List<Long> arriveAtOnce(Pacer pacer) {
        List<Long> turns = new ArrayList<>();
        for (int caller = 0; caller < CALLERS; caller++) {
            turns.add(pacer.turnWait(0));
        }
        return turns;
    }

    private static List<Long> millis(List<Long> nanos) {
        List<Long> millis = new ArrayList<>();
        nanos.forEach(value -> millis.add(value / MS));
        return millis;
    }
}
