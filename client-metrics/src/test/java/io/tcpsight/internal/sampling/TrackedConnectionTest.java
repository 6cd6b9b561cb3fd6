package io.tcpsight.internal.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class TrackedConnectionTest {
    /** A request hook and a namer may complete one identity at the same moment: neither change is lost. */
    @Test
    void identityChangesFromTwoThreadsAllLand() throws Exception {
        TrackedConnection connection = new TrackedConnection(
                3, 0, ConnectionIdentity.of(Role.BROKER, null, null).withClientId("0"));
        int each = 100_000;
        CountDownLatch start = new CountDownLatch(1);
        Runnable count = () -> {
            try {
                start.await();
            } catch (InterruptedException interrupted) {
                return;
            }
            for (int i = 0; i < each; i++) {
                connection.updateIdentity(identity -> identity.withClientId(
                        Integer.toString(Integer.parseInt(identity.clientId().get()) + 1)));
            }
        };
        Thread first = new Thread(count);
        Thread second = new Thread(count);
        first.start();
        second.start();
        start.countDown();
        first.join();
        second.join();
        assertEquals(
                Integer.toString(2 * each), connection.identity().clientId().get());
    }

    /**
     * A tracked connection keeps its identity with the owner its client's connections share, as made and after
     * each change: keeping it again (what {@code shared} does) gives back the very identity it holds.
     */
    @Test
    void aTrackedConnectionKeepsItsIdentityWithTheSharedOwner() {
        client(40_001).withPrincipal("User:orders").shared(); // an owner kept before: the one its equals share
        TrackedConnection second = new TrackedConnection(4, 0, client(40_002).withPrincipal("User:orders"));
        // an owner equal to the first's, made anew: kept, it is the first's
        assertSame(second.identity(), second.identity().shared(), "as made");
        TrackedConnection third = new TrackedConnection(5, 0, client(40_003));
        third.updateIdentity(identity -> identity.withPrincipal("User:orders"));
        assertSame(third.identity(), third.identity().shared(), "after a change");
    }

    private static ConnectionIdentity client(int port) {
        return ConnectionIdentity.of(
                        Role.BROKER, new InetSocketAddress("10.0.0.1", 9092), new InetSocketAddress("10.0.0.2", port))
                .withClientId("orders-app");
    }

    /**
     * A handshake is the time from its marked start to its end, taken once: kept in an int of milliseconds, it
     * reads right across that int's wrap and from a negative System.nanoTime.
     */
    @Test
    void aHandshakeIsMeasuredOnceFromItsStartAcrossTheMillisecondsWrap() {
        TrackedConnection connection = new TrackedConnection(3, 0, ConnectionIdentity.of(Role.CLIENT, null, null));
        connection.handshakeCompleted(5_000_000_000L);
        assertEquals(OptionalLong.empty(), connection.handshakeMillis(), "no start marked");
        long start = Integer.MAX_VALUE * 1_000_000L - 2_000_000L; // 2 ms before an int of milliseconds wraps
        connection.handshakeStarted(start);
        connection.handshakeCompleted(start + 7_500_000L);
        assertEquals(OptionalLong.of(7), connection.handshakeMillis());
        connection.handshakeCompleted(start + 90_000_000L);
        assertEquals(OptionalLong.of(7), connection.handshakeMillis(), "once: a later end changes nothing");

        TrackedConnection early = new TrackedConnection(4, 0, ConnectionIdentity.of(Role.CLIENT, null, null));
        early.handshakeStarted(-3_000_000L);
        early.handshakeCompleted(1_000_000L);
        assertEquals(OptionalLong.of(4), early.handshakeMillis());

        // a start in the millisecond that marks none is kept, a millisecond late
        TrackedConnection atTheMark = new TrackedConnection(5, 0, ConnectionIdentity.of(Role.CLIENT, null, null));
        long mark = Integer.MIN_VALUE * 1_000_000L;
        atTheMark.handshakeStarted(mark);
        atTheMark.handshakeCompleted(mark + 5_000_000L);
        assertEquals(OptionalLong.of(4), atTheMark.handshakeMillis());
    }

    /** A socket's inode is 32 bits, kept in an int: one above the int's half reads back as it was. */
    @Test
    void anInodeAboveTheIntsHalfReadsBackAsItWas() {
        assertEquals(
                0xFFFF_FFF0L,
                new TrackedConnection(3, 0xFFFF_FFF0L, ConnectionIdentity.of(Role.BROKER, null, null)).inode());
    }

    /**
     * How far the peer's buffer has opened is the widest window it advertised, not the one it
     * advertises now; the latest sample is left out, so that a rule can tell a window still growing.
     */
    @Test
    void theWidestWindowThePeerAdvertisedOutlivesAClosedOne() {
        TrackedConnection connection = new TrackedConnection(3, 0, ConnectionIdentity.of(Role.BROKER, null, null));
        assertEquals(OptionalLong.empty(), connection.widestEarlierSndWindowBytes());
        List<OptionalLong> earlier = new ArrayList<>();
        for (long window : new long[] {80_480, 6_552_320, 0, 131_072, 7_000_000}) {
            connection.latest(
                    ConnectionSample.at(window).windows(10, window, 65_536).build());
            earlier.add(connection.widestEarlierSndWindowBytes());
        }
        assertEquals(
                List.of(
                        OptionalLong.empty(),
                        OptionalLong.of(80_480),
                        OptionalLong.of(6_552_320),
                        OptionalLong.of(6_552_320),
                        OptionalLong.of(6_552_320)),
                earlier);
    }

    /**
     * The samples in a row whose window was narrower than what this end moved through it a round
     * trip: samples a second apart, 100 ms of path, 8 MB a second acknowledged (800 KB a round trip).
     * The first sample has no interval, so it counts none; a window as wide as the flow ends the run.
     */
    @Test
    void theSamplesInARowWhoseWindowWasNarrowerThanTheFlowAreCounted() {
        TrackedConnection connection = new TrackedConnection(3, 0, ConnectionIdentity.of(Role.BROKER, null, null));
        List<Integer> inARow = new ArrayList<>();
        ConnectionSample previous = null;
        long[] windows = {3_300_000, 5_888, 2_944, 17_408, 800_000, 0};
        for (int i = 0; i < windows.length; i++) {
            ConnectionSample sample = flowing(i, previous, windows[i]);
            connection.latest(sample);
            previous = sample;
            inARow.add(connection.samplesNarrowerThanTheFlow());
        }
        assertEquals(List.of(0, 1, 2, 3, 0, 1), inARow);
    }

    /**
     * The count is kept in a byte: past 127 samples in a row it stays at 127, never wrapping to a
     * negative or small count that would read as a run just begun.
     */
    @Test
    void aLongRunOfNarrowSamplesStaysAtItsMostAndNeverWraps() {
        TrackedConnection connection = new TrackedConnection(3, 0, ConnectionIdentity.of(Role.BROKER, null, null));
        ConnectionSample previous = null;
        int most = 0;
        for (int i = 0; i < 300; i++) {
            ConnectionSample sample = flowing(i, previous, 5_888);
            connection.latest(sample);
            previous = sample;
            assertTrue(connection.samplesNarrowerThanTheFlow() >= Math.min(i, Byte.MAX_VALUE), "sample " + i);
            most = Math.max(most, connection.samplesNarrowerThanTheFlow());
        }
        assertEquals(Byte.MAX_VALUE, connection.samplesNarrowerThanTheFlow());
        assertEquals(Byte.MAX_VALUE, most);
    }

    /**
     * Sample {@code i}, a second after {@code previous}: 100 ms of path, 8 MB a second acknowledged
     * (800 KB a round trip), the peer's window {@code window}.
     */
    private static ConnectionSample flowing(int i, ConnectionSample previous, long window) {
        return ConnectionSample.at(i * 1_000_000_000L)
                .after(previous)
                .rtt(120_000, 100_000)
                .windows(10, window, 65_536)
                .counters(0, 1_000L * i, 8_000_000L * i, 0)
                .build();
    }
}
