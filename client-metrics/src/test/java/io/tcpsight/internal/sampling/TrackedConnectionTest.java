package io.tcpsight.internal.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
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
     * The sample before the latest is kept as a window and the rate of the interval that ended
     * there, so a rule can tell a window that narrowed since from one that was narrow before. Samples
     * a second apart, this end having sent 1 MB in the second: the rate is known from the second
     * sample's interval, so from the third sample on.
     */
    @Test
    void theSampleBeforeTheLatestKeepsItsWindowAndItsIntervalsRate() {
        TrackedConnection connection = new TrackedConnection(3, 0, ConnectionIdentity.of(Role.BROKER, null, null));
        List<String> earlier = new ArrayList<>();
        ConnectionSample previous = null;
        long[] windows = {65_536, 268_613, 5_888, 3_300_000};
        for (int i = 0; i < windows.length; i++) {
            ConnectionSample sample = ConnectionSample.at(i * 1_000_000_000L)
                    .after(previous)
                    .windows(10, windows[i], 65_536)
                    .counters(0, 100L * i, 1_000_000L * i * i, 0)
                    .build();
            connection.latest(sample);
            previous = sample;
            earlier.add(connection.earlierSndWindowBytes() + " " + connection.earlierSendRateBytesPerSecond());
        }
        assertEquals(
                List.of(
                        "OptionalLong.empty OptionalDouble.empty",
                        "OptionalLong[65536] OptionalDouble.empty",
                        "OptionalLong[268613] OptionalDouble[1000000.0]",
                        "OptionalLong[5888] OptionalDouble[3000000.0]"),
                earlier);
    }
}
