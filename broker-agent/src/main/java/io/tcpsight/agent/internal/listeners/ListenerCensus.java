package io.tcpsight.agent.internal.listeners;

import io.tcpsight.internal.tcp.ProcessSocket;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * The broker's listening sockets, without a census of every descriptor each round. A census
 * lists {@code /proc/self/fd} and asks each socket its state: about 5.6 µs a descriptor, 84 ms a
 * round on a broker holding 15,000 connections, for the two or three listeners it finds. Listeners
 * change rarely, so the last census is kept and each of its listeners is checked every round
 * (still the same socket on its descriptor, still listening). A census is taken again only when
 * the last one may have missed a listener:
 * <ul>
 *   <li>a listener it found is gone (closed, or its descriptor reused);
 *   <li>a connection came in, or a request named a listener, on a port none of its listeners has
 *       (Kafka opens its listeners after the agent starts, and a listener added at run time is
 *       first seen by what it accepts).
 * </ul>
 * A port that a census could not explain (its listener closed, the connections stay) asks again at
 * most once a minute. A listener first found by any census after the first one was opened after
 * that census: everything its socket counts happened while the agent watched.
 */
final class ListenerCensus {
    static final long UNEXPLAINED_PORT_RETRY_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** The census itself: this process's listening sockets. */
    interface Census {
        List<ProcessSocket> listening() throws IOException;
    }

    private final Census census;
    /** The inode on a descriptor now, empty when it holds no socket. */
    private final IntFunction<OptionalLong> inodeOf;
    /** Whether the socket on a descriptor still listens. */
    private final IntPredicate listens;

    private List<ProcessSocket> known;
    private final Set<Integer> knownPorts = new HashSet<>();
    private final Set<Long> foundLater = new HashSet<>();
    /** Ports no census explained, and when a census last tried. */
    private final Map<Integer, Long> unexplained = new HashMap<>();

    private long censuses;

    ListenerCensus(Census census, IntFunction<OptionalLong> inodeOf, IntPredicate listens) {
        this.census = census;
        this.inodeOf = inodeOf;
        this.listens = listens;
    }

    /**
     * The listening sockets now, taking a census when the last one may have missed one.
     *
     * @param acceptedPorts the local ports this broker accepted connections on, as far as it knows
     */
    List<ProcessSocket> current(Set<Integer> acceptedPorts, long nanoTime) throws IOException {
        if (known == null || !stillValid() || unknownPortAsks(acceptedPorts, nanoTime)) {
            take(acceptedPorts, nanoTime);
        }
        return known;
    }

    /** Whether this listener was first found by a census after the first: its socket is younger than the agent's watch. */
    boolean foundAfterFirstCensus(ProcessSocket listener) {
        return foundLater.contains(listener.inode());
    }

    /** How many censuses were taken. */
    long censuses() {
        return censuses;
    }

    private boolean stillValid() {
        for (ProcessSocket listener : known) {
            OptionalLong inode = inodeOf.apply(listener.fd());
            if (inode.isEmpty() || inode.getAsLong() != listener.inode() || !listens.test(listener.fd())) {
                return false;
            }
        }
        return true;
    }

    private boolean unknownPortAsks(Set<Integer> acceptedPorts, long nanoTime) {
        for (int port : acceptedPorts) {
            if (knownPorts.contains(port)) {
                continue;
            }
            Long tried = unexplained.get(port);
            if (tried == null || nanoTime - tried >= UNEXPLAINED_PORT_RETRY_NANOS) {
                return true;
            }
        }
        return false;
    }

    private void take(Set<Integer> acceptedPorts, long nanoTime) throws IOException {
        boolean first = known == null;
        List<ProcessSocket> found = new ArrayList<>(census.listening());
        censuses++;
        Set<Long> before = new HashSet<>();
        if (!first) {
            known.forEach(listener -> before.add(listener.inode()));
        }
        Set<Long> inodes = new HashSet<>();
        knownPorts.clear();
        for (ProcessSocket listener : found) {
            inodes.add(listener.inode());
            knownPorts.add(listener.local().getPort());
            if (!first && !before.contains(listener.inode())) {
                foundLater.add(listener.inode());
            }
        }
        foundLater.retainAll(inodes);
        // A port is told only in the rounds that read one of its connections (an idle one is read every few), so
        // one not told now keeps its try until the minute is up: dropped on not being told, it would ask again the
        // next time it is. Bounded by the ports told within a minute, those of the broker's listeners.
        unexplained.values().removeIf(tried -> nanoTime - tried >= UNEXPLAINED_PORT_RETRY_NANOS);
        for (int port : acceptedPorts) {
            if (!knownPorts.contains(port)) {
                unexplained.put(port, nanoTime);
            } else {
                unexplained.remove(port);
            }
        }
        known = found;
    }
}
