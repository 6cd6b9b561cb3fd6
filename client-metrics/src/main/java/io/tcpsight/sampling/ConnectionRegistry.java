package io.tcpsight.sampling;

import io.tcpsight.model.ConnectionIdentity;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connections being observed, by file descriptor. Bounded: beyond its capacity a new
 * connection is refused and counted, so a connection storm cannot grow the heap. Owners
 * release connections when they close (or a sample finds the descriptor gone).
 */
public final class ConnectionRegistry {
    private final int capacity;
    private final ConcurrentHashMap<Integer, TrackedConnection> connections = new ConcurrentHashMap<>();
    private final AtomicLong refused = new AtomicLong();

    public ConnectionRegistry(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * Tracks the socket on fd; a connection already tracked on the same fd (the descriptor was
     * reused after a close nobody reported) is replaced.
     */
    public Optional<TrackedConnection> track(int fd, long inode, ConnectionIdentity identity) {
        TrackedConnection connection = new TrackedConnection(fd, inode, identity);
        if (connections.size() >= capacity && !connections.containsKey(fd)) {
            refused.incrementAndGet();
            return Optional.empty();
        }
        connections.put(fd, connection);
        return Optional.of(connection);
    }

    public void release(int fd) {
        connections.remove(fd);
    }

    /** Releases the connection only if it is still this one (not a newer one on a reused fd). */
    public void release(TrackedConnection connection) {
        connections.remove(connection.fd(), connection);
    }

    public Optional<TrackedConnection> get(int fd) {
        return Optional.ofNullable(connections.get(fd));
    }

    public List<TrackedConnection> connections() {
        return new ArrayList<>(connections.values());
    }

    public int size() {
        return connections.size();
    }

    public int capacity() {
        return capacity;
    }

    /** Connections not tracked because the registry was full. */
    public long refused() {
        return refused.get();
    }
}
