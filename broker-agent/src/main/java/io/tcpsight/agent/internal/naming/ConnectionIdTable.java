package io.tcpsight.agent.internal.naming;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The broker's connections by Kafka's connection id: an open-addressed table of the connections
 * themselves, each keyed by the id it holds. A map's entry cost each of a big broker's connections 32
 * bytes and its table slot; here a connection costs its slot alone (4 bytes, the table a sixth to a
 * half full). Every request looks its connection up, on the broker's network threads: a lookup takes no
 * lock. Connections come and go under the table's lock, a few a second on a busy broker.
 *
 * <p>A lookup reads the table published when it began. A put or a remove writes one slot of it, and a
 * slot once used never goes back to empty (a removed connection leaves a mark a lookup probes past); the
 * table is never rebuilt in place but into a new one, published once filled. So a lookup racing a change
 * finds the connection as it was either side of it, and one held all along always.
 */
final class ConnectionIdTable {
    /** Where a connection was removed: a lookup probes past it. Never a connection. */
    private static final Object REMOVED = new Object();

    private static final int SMALLEST = 16;

    private volatile AtomicReferenceArray<Object> slots = new AtomicReferenceArray<>(SMALLEST);
    /** Connections held, and slots no longer empty (held or removed): both written under the lock. */
    private int held;

    private int used;

    /** The connection with this id, or null. */
    BrokerConnection get(String connectionId) {
        AtomicReferenceArray<Object> table = slots;
        int mask = table.length() - 1;
        for (int i = indexOf(connectionId, mask), probed = 0; probed <= mask; i = (i + 1) & mask, probed++) {
            Object slot = table.get(i);
            if (slot == null) {
                return null;
            }
            if (slot != REMOVED && ((BrokerConnection) slot).connectionId.equals(connectionId)) {
                return (BrokerConnection) slot;
            }
        }
        return null;
    }

    /** Holds {@code connection} under its id, in place of one held under the same id. */
    synchronized void put(BrokerConnection connection) {
        if ((used + 1) * 2 > slots.length()) {
            rebuild(held + 1);
        }
        AtomicReferenceArray<Object> table = slots;
        int mask = table.length() - 1;
        int free = -1;
        int i = indexOf(connection.connectionId, mask);
        for (Object slot = table.get(i); slot != null; i = (i + 1) & mask, slot = table.get(i)) {
            if (slot == REMOVED) {
                free = free < 0 ? i : free;
            } else if (((BrokerConnection) slot).connectionId.equals(connection.connectionId)) {
                table.set(i, connection);
                return;
            }
        }
        if (free < 0) {
            free = i; // the empty slot that ended the probe
            used++;
        }
        table.set(free, connection);
        held++;
    }

    /** Lets {@code connection} go, if it is the one held under its id. */
    synchronized void remove(BrokerConnection connection) {
        AtomicReferenceArray<Object> table = slots;
        int mask = table.length() - 1;
        for (int i = indexOf(connection.connectionId, mask), probed = 0; probed <= mask; i = (i + 1) & mask, probed++) {
            Object slot = table.get(i);
            if (slot == null) {
                return;
            }
            if (slot == connection) {
                table.set(i, REMOVED);
                held--;
                if (held * 8 < table.length() && table.length() > SMALLEST) {
                    rebuild(held); // most connections gone: a smaller table
                }
                return;
            }
        }
    }

    /** Connections held. */
    synchronized int size() {
        return held;
    }

    /** Slots of the table as it stands (a test's view of its bound). */
    int capacity() {
        return slots.length();
    }

    /** A new table for {@code count} connections, a sixth to a third full, published once filled. */
    private void rebuild(int count) {
        int length = Math.max(SMALLEST, Integer.highestOneBit(Math.max(1, count * 3 - 1)) << 1);
        AtomicReferenceArray<Object> old = slots;
        AtomicReferenceArray<Object> table = new AtomicReferenceArray<>(length);
        int mask = length - 1;
        for (int j = 0; j < old.length(); j++) {
            Object slot = old.get(j);
            if (slot != null && slot != REMOVED) {
                int i = indexOf(((BrokerConnection) slot).connectionId, mask);
                while (table.get(i) != null) {
                    i = (i + 1) & mask;
                }
                table.set(i, slot);
            }
        }
        used = held;
        slots = table;
    }

    private static int indexOf(String connectionId, int mask) {
        int h = connectionId.hashCode();
        return (h ^ (h >>> 16)) & mask;
    }
}
