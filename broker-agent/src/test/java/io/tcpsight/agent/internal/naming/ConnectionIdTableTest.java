package io.tcpsight.agent.internal.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The broker's connections by Kafka's connection id: found while they are held, whatever comes and goes beside them. */
class ConnectionIdTableTest {
    private final ConnectionIdTable table = new ConnectionIdTable();

    private static BrokerConnection connection(String id) {
        return new BrokerConnection(id, null);
    }

    /** "Aa" and "BB" hash alike, so any string of them hashes like any other of the same length: one probe run. */
    private static List<BrokerConnection> sameHash(int count) {
        List<BrokerConnection> connections = new ArrayList<>();
        for (int n = 0; n < count; n++) {
            StringBuilder id = new StringBuilder();
            for (int bit = 0; bit < 4; bit++) {
                id.append((n >> bit & 1) == 0 ? "Aa" : "BB");
            }
            connections.add(connection(id.toString()));
        }
        assertEquals(
                connections.get(0).connectionId.hashCode(),
                connections.get(count - 1).connectionId.hashCode());
        return connections;
    }

    @Test
    void aConnectionIsFoundByItsIdUntilItIsRemoved() {
        BrokerConnection one = connection("127.0.0.1:9092-127.0.0.1:50000-0-1");
        table.put(one);
        assertSame(one, table.get("127.0.0.1:9092-127.0.0.1:50000-0-1"));
        assertNull(table.get("127.0.0.1:9092-127.0.0.1:50000-0-2"));
        table.remove(one);
        assertNull(table.get("127.0.0.1:9092-127.0.0.1:50000-0-1"));
        assertEquals(0, table.size());
    }

    @Test
    void connectionsWhoseIdsHashAlikeAreFoundPastOneRemovedBeforeThem() {
        List<BrokerConnection> connections = sameHash(5);
        connections.forEach(table::put);
        table.remove(connections.get(1));
        assertNull(table.get(connections.get(1).connectionId));
        for (int n : new int[] {0, 2, 3, 4}) {
            assertSame(connections.get(n), table.get(connections.get(n).connectionId), "connection " + n);
        }
        table.put(connections.get(1)); // back in the removed one's slot, not a second copy
        table.remove(connections.get(1));
        assertNull(table.get(connections.get(1).connectionId), "held once");
        assertEquals(4, table.size());
    }

    @Test
    void aConnectionPutUnderAHeldIdReplacesItAndTheOneReplacedRemovesNothing() {
        List<BrokerConnection> connections = sameHash(3);
        connections.forEach(table::put);
        table.remove(connections.get(0)); // a removed slot before the id held further on
        BrokerConnection again = connection(connections.get(2).connectionId);
        table.put(again);
        assertEquals(2, table.size(), "replaced, not held beside it");
        assertSame(again, table.get(again.connectionId));
        table.remove(again);
        assertNull(table.get(again.connectionId), "held once: the one replaced is not left behind the removed slot");
        table.put(again);
        table.remove(connections.get(2));
        assertSame(again, table.get(again.connectionId), "the one replaced is not the one held");
        assertEquals(2, table.size());
    }

    @Test
    void theTableGrowsWithItsConnectionsAndShrinksWhenMostAreGone() {
        List<BrokerConnection> connections = new ArrayList<>();
        for (int n = 0; n < 100_000; n++) {
            connections.add(connection("10.0.0.1:9092-10.0.1." + n % 250 + ":" + (20_000 + n) + "-" + n % 3 + "-" + n));
            table.put(connections.get(n));
        }
        for (BrokerConnection each : connections) {
            assertSame(each, table.get(each.connectionId));
        }
        assertEquals(100_000, table.size());
        // a sixth to a half full: a slot of 4 bytes is 8 to 24 bytes a connection
        assertTrue(table.capacity() <= 6 * 100_000 && table.capacity() >= 2 * 100_000, "" + table.capacity());
        for (BrokerConnection each : connections.subList(100, connections.size())) {
            table.remove(each);
        }
        for (BrokerConnection each : connections.subList(0, 100)) {
            assertSame(each, table.get(each.connectionId));
        }
        assertNull(table.get(connections.get(100).connectionId));
        assertTrue(table.capacity() <= 8 * 100, "shrunk with its connections: " + table.capacity());
    }

    /**
     * Lookups on four threads while another thread puts and removes many other connections, the table
     * growing and shrinking under them: a connection held all along is found by every lookup.
     */
    @Test
    void aConnectionHeldAllAlongIsFoundByEveryLookupWhileOthersComeAndGo() throws Exception {
        List<BrokerConnection> held = new ArrayList<>();
        for (int n = 0; n < 1_000; n++) {
            held.add(connection("10.0.0.1:9092-10.0.2.1:" + (10_000 + n) + "-0-" + n));
            table.put(held.get(n));
        }
        AtomicBoolean churning = new AtomicBoolean(true);
        AtomicLong misses = new AtomicLong();
        AtomicLong lookups = new AtomicLong();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            int offset = r * 250;
            Thread reader = new Thread(() -> {
                for (int n = offset; churning.get(); n = (n + 1) % held.size()) {
                    BrokerConnection each = held.get(n);
                    if (table.get(each.connectionId) != each) {
                        misses.incrementAndGet();
                    }
                    lookups.incrementAndGet();
                }
            });
            reader.start();
            readers.add(reader);
        }
        try {
            for (int wave = 0; wave < 20; wave++) {
                List<BrokerConnection> others = new ArrayList<>();
                for (int n = 0; n < 10_000; n++) {
                    others.add(connection("10.0.0.1:9092-10.0.3.1:" + n + "-1-" + wave));
                    table.put(others.get(n));
                }
                others.forEach(table::remove); // gone again: the table shrinks back
            }
        } finally {
            churning.set(false);
            for (Thread reader : readers) {
                reader.join();
            }
        }
        assertEquals(0, misses.get(), "of " + lookups.get() + " lookups");
        assertTrue(lookups.get() > 1_000, "the readers looked up while the table changed: " + lookups.get());
        assertEquals(1_000, table.size());
    }
}
