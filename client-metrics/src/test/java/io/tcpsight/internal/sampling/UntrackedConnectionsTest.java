package io.tcpsight.internal.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What a full registry refuses stays counted, by listener, until it closes or is tracked. */
class UntrackedConnectionsTest {
    private static ConnectionIdentity on(String listener) {
        ConnectionIdentity identity = ConnectionIdentity.of(Role.BROKER, new InetSocketAddress("10.0.0.2", 9092), null);
        return listener == null ? identity : identity.withListener(listener);
    }

    @Test
    void refusedConnectionsAreCountedByListenerUntilTheyClose() {
        ConnectionRegistry registry = new ConnectionRegistry(2);
        assertTrue(registry.track(10, 1, on("PLAINTEXT")).isPresent());
        assertTrue(registry.track(11, 2, on("PLAINTEXT")).isPresent());
        assertTrue(registry.track(12, 3, on("PLAINTEXT")).isEmpty());
        assertTrue(registry.track(13, 4, on("SSL")).isEmpty());
        assertTrue(registry.track(14, 5, on(null)).isEmpty());
        assertEquals(Map.of("PLAINTEXT", 1L, "SSL", 1L, "", 1L), registry.untracked());
        assertEquals(3, registry.refused());
        registry.release(13);
        assertEquals(Map.of("PLAINTEXT", 1L, "", 1L), registry.untracked(), "SSL's closed");
        registry.release(10); // a tracked one closes: room for the next
        assertTrue(registry.track(12, 6, on("PLAINTEXT")).isPresent(), "fd 12 again, tracked now");
        assertEquals(Map.of("", 1L), registry.untracked());
        assertEquals(3, registry.refused(), "refused counts since the start");
    }

    @Test
    void aReusedDescriptorIsCountedOnce() {
        ConnectionRegistry registry = new ConnectionRegistry(1);
        registry.track(3, 1, on("PLAINTEXT"));
        registry.track(40, 2, on("PLAINTEXT"));
        registry.track(40, 3, on("SSL")); // closed unheard, and reused by SSL
        assertEquals(Map.of("SSL", 1L), registry.untracked());
    }

    @Test
    void aCensusForgetsTheRefusedOnesItNoLongerSees() {
        ConnectionRegistry registry = new ConnectionRegistry(1);
        registry.track(3, 1, on(null));
        for (int fd = 4; fd < 1004; fd++) {
            registry.track(fd, fd, on(null));
        }
        assertEquals(Map.of("", 1000L), registry.untracked());
        registry.untrackedStillOpen(Set.of(3, 500, 1003));
        assertEquals(Map.of("", 2L), registry.untracked());
    }

    /**
     * Kafka's processor threads register connections at once: the registry never holds more than
     * its capacity, and every connection is either tracked or counted as refused.
     */
    @Test
    void threadsRegisteringAtOnceNeverPassTheCapacity() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(100);
        int threads = 8;
        int each = 2_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        AtomicInteger most = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int first = t * each;
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception interrupted) {
                    return;
                }
                for (int fd = first; fd < first + each; fd++) {
                    registry.track(fd, fd + 1, on("PLAINTEXT"));
                    most.accumulateAndGet(registry.size(), Math::max);
                    if (fd % 3 == 0) {
                        registry.release(fd); // room comes and goes, as connections close
                    }
                }
            });
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        assertTrue(most.get() <= 100, "the registry held " + most.get() + " connections with room for 100");
        assertEquals(100, registry.size(), "full at the end");
    }

    @Test
    void listenersPastTheLimitCountAsOther() {
        ConnectionRegistry registry = new ConnectionRegistry(1);
        registry.track(0, 1, on("first"));
        for (int i = 0; i < UntrackedConnections.MAX_GROUPS + 10; i++) {
            registry.track(i + 1, i + 2, on("L" + i));
        }
        Map<String, Long> untracked = registry.untracked();
        assertEquals(
                UntrackedConnections.MAX_GROUPS,
                untracked.size(),
                untracked.keySet().toString());
        assertEquals(11L, untracked.get(UntrackedConnections.OTHER));
    }
}
