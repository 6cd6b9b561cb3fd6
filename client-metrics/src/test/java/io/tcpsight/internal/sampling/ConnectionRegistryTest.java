package io.tcpsight.internal.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The registry by descriptor: found, listed in descriptor order, replaced on reuse, and bounded under concurrent tracking. */
class ConnectionRegistryTest {
    private static final ConnectionIdentity BROKER = ConnectionIdentity.of(Role.BROKER, null, null);

    @Test
    void descriptorsFarApartAreFoundAndListedInOrder() {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        TrackedConnection high = registry.track(100_000, 1, BROKER).orElseThrow();
        TrackedConnection low = registry.track(3, 2, BROKER).orElseThrow();
        TrackedConnection middle = registry.track(700, 3, BROKER).orElseThrow();
        assertSame(high, registry.get(100_000).orElseThrow());
        assertTrue(registry.get(99_999).isEmpty());
        assertTrue(registry.get(250_000).isEmpty(), "beyond every descriptor tracked");
        assertEquals(List.of(low, middle, high), registry.connections());
        assertEquals(3, registry.size());
    }

    @Test
    void aReusedDescriptorReplacesTheOldConnectionWhichHearsItsEnd() {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        List<TrackedConnection> ended = new ArrayList<>();
        registry.onClose(ended::add);
        TrackedConnection old = registry.track(5, 1, BROKER).orElseThrow();
        TrackedConnection next = registry.track(5, 2, BROKER).orElseThrow();
        assertEquals(List.of(old), ended);
        assertFalse(old.isTracked());
        assertEquals(1, registry.size());
        registry.release(old); // the old one's late release leaves the new one alone
        assertSame(next, registry.get(5).orElseThrow());
        registry.release(5);
        assertTrue(registry.get(5).isEmpty());
        assertEquals(0, registry.size());
        assertEquals(List.of(old, next), ended);
    }

    @Test
    void aNegativeDescriptorIsRefusedWithItsValue() {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        IllegalArgumentException refused =
                assertThrows(IllegalArgumentException.class, () -> registry.track(-1, 1, BROKER));
        assertTrue(refused.getMessage().contains("-1"), refused.getMessage());
    }

    @Test
    void manyThreadsTrackingAtOnceNeverPassTheCapacity() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(500);
        ExecutorService threads = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int thread = 0; thread < 8; thread++) {
            int first = thread * 1_000;
            done.add(threads.submit(() -> {
                start.await();
                for (int fd = first; fd < first + 1_000; fd++) {
                    registry.track(fd, fd, BROKER);
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> each : done) {
            each.get(30, TimeUnit.SECONDS);
        }
        threads.shutdown();
        assertEquals(500, registry.size());
        assertEquals(500, registry.connections().size());
        assertEquals(7_500, registry.refused());
    }
}
