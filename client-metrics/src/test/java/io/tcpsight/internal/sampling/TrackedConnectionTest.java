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

    /** The window at the sample before the latest is kept, so a rule can tell a window that narrowed since. */
    @Test
    void theWindowAtTheSampleBeforeTheLatestIsKept() {
        TrackedConnection connection = new TrackedConnection(3, 0, ConnectionIdentity.of(Role.BROKER, null, null));
        List<OptionalLong> earlier = new ArrayList<>();
        for (long window : new long[] {65_536, 268_613, 5_888, 3_300_000}) {
            connection.latest(
                    ConnectionSample.at(window).windows(10, window, 65_536).build());
            earlier.add(connection.earlierSndWindowBytes());
        }
        assertEquals(
                List.of(
                        OptionalLong.empty(),
                        OptionalLong.of(65_536),
                        OptionalLong.of(268_613),
                        OptionalLong.of(5_888)),
                earlier);
    }
}
