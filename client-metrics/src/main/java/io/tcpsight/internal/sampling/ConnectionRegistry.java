package io.tcpsight.internal.sampling;

import io.tcpsight.internal.model.ConnectionIdentity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * The connections being observed, by file descriptor. Bounded: beyond its capacity a new
 * connection is refused and counted, so a connection storm cannot grow the heap; the refused ones
 * still open are counted by listener ({@link #untracked()}), so that what is not watched is said. Owners
 * release connections when they close (or a sample finds the descriptor gone), and listeners
 * hear of each such end; a connection found not to be this component's is forgotten silently.
 */
public final class ConnectionRegistry {
    private final int capacity;
    /*
     * By descriptor, in an array as long as the highest descriptor tracked: descriptors are small
     * and dense, and a map would cost a boxed key and a node for each of 100,000 connections.
     * Written under this registry's lock; read without it.
     */
    private volatile AtomicReferenceArray<TrackedConnection> byFd = new AtomicReferenceArray<>(64);
    private volatile int size;
    private final AtomicLong refused = new AtomicLong();
    private final UntrackedConnections untracked = new UntrackedConnections();
    private final List<Consumer<TrackedConnection>> closeListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<TrackedConnection>> forgetListeners = new CopyOnWriteArrayList<>();

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
        TrackedConnection replaced;
        // Kafka's processor threads register connections at once: the capacity check and the put are
        // one step, or each thread passes the check and the registry grows past its bound.
        synchronized (this) {
            if (size >= capacity && at(fd) == null) {
                refused.incrementAndGet();
                untracked.refused(fd, identity.listener().orElse(""));
                return Optional.empty();
            }
            untracked.closed(fd);
            replaced = put(fd, connection);
            if (replaced != null) {
                replaced.untracked();
            }
        }
        if (replaced != null) {
            closed(replaced);
        }
        return Optional.of(connection);
    }

    /** Called with each tracked connection that ended (released, or replaced on its reused fd); on the caller's thread. */
    public void onClose(Consumer<TrackedConnection> listener) {
        closeListeners.add(listener);
    }

    /** Stops calling a listener given to {@link #onClose} or {@link #onForget}. */
    public void removeListener(Consumer<TrackedConnection> listener) {
        closeListeners.remove(listener);
        forgetListeners.remove(listener);
    }

    /** The connection on fd closed, tracked or not. */
    public void release(int fd) {
        TrackedConnection removed;
        synchronized (this) {
            removed = put(fd, null);
            if (removed != null) {
                removed.untracked();
            }
            if (removed == null) {
                untracked.closed(fd);
            }
        }
        if (removed != null) {
            closed(removed);
        }
    }

    /** Releases the connection only if it is still this one (not a newer one on a reused fd). */
    public void release(TrackedConnection connection) {
        boolean removed;
        synchronized (this) {
            removed = removeIfSame(connection);
            if (removed) {
                connection.untracked();
            }
        }
        if (removed) {
            closed(connection);
        }
    }

    /** Called with each connection forgotten as not this component's (it did not end); on the caller's thread. */
    public void onForget(Consumer<TrackedConnection> listener) {
        forgetListeners.add(listener);
    }

    /** Stops tracking a connection that is not this component's (another client's): it did not end. */
    public void forget(TrackedConnection connection) {
        boolean removed;
        synchronized (this) {
            removed = removeIfSame(connection);
            if (removed) {
                connection.untracked();
            }
        }
        if (removed) {
            for (Consumer<TrackedConnection> listener : forgetListeners) {
                listener.accept(connection);
            }
        }
    }

    private void closed(TrackedConnection connection) {
        for (Consumer<TrackedConnection> listener : closeListeners) {
            listener.accept(connection);
        }
    }

    public Optional<TrackedConnection> get(int fd) {
        return Optional.ofNullable(at(fd));
    }

    public List<TrackedConnection> connections() {
        AtomicReferenceArray<TrackedConnection> table = byFd;
        List<TrackedConnection> all = new ArrayList<>(size);
        for (int fd = 0; fd < table.length(); fd++) {
            TrackedConnection connection = table.get(fd);
            if (connection != null) {
                all.add(connection);
            }
        }
        return all;
    }

    public int size() {
        return size;
    }

    private TrackedConnection at(int fd) {
        AtomicReferenceArray<TrackedConnection> table = byFd;
        return fd >= 0 && fd < table.length() ? table.get(fd) : null;
    }

    /** Under the lock: sets fd's connection (null removes it), returning the one it had. */
    private TrackedConnection put(int fd, TrackedConnection connection) {
        if (fd < 0) {
            throw new IllegalArgumentException("a file descriptor is never negative, got " + fd);
        }
        AtomicReferenceArray<TrackedConnection> table = byFd;
        if (fd >= table.length()) {
            if (connection == null) {
                return null;
            }
            AtomicReferenceArray<TrackedConnection> grown = new AtomicReferenceArray<>(
                    (int) Math.max(fd + 1L, Math.min(Integer.MAX_VALUE - 8L, table.length() * 2L)));
            for (int i = 0; i < table.length(); i++) {
                grown.set(i, table.get(i));
            }
            byFd = grown;
            table = grown;
        }
        TrackedConnection previous = table.getAndSet(fd, connection);
        size += (connection != null ? 1 : 0) - (previous != null ? 1 : 0);
        return previous;
    }

    /** Under the lock: removes the connection if its descriptor still holds it. */
    private boolean removeIfSame(TrackedConnection connection) {
        if (at(connection.fd()) != connection) {
            return false;
        }
        put(connection.fd(), null);
        return true;
    }

    public int capacity() {
        return capacity;
    }

    /** Connections not tracked because the registry was full, since the start. */
    public long refused() {
        return refused.get();
    }

    /** For an owner that finds sockets by census: the refused ones not among these have closed. */
    public void untrackedStillOpen(Set<Integer> fds) {
        untracked.retainOnly(fds);
    }

    /**
     * Connections refused while the registry was full and still open, by listener ("" for a
     * component's own client connections); only groups with some.
     */
    public Map<String, Long> untracked() {
        return untracked.byGroup();
    }
}
