package io.tcpsight.agent.internal.listeners;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.Diagnosis;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.host.NetstatCounters;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.ListenerFacts;
import io.tcpsight.internal.model.OptionalValues;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.HostKernelCalls;
import io.tcpsight.internal.tcp.ListenQueue;
import io.tcpsight.internal.tcp.ProcessSocket;
import io.tcpsight.internal.tcp.ProcessSocketCensus;
import io.tcpsight.internal.tcp.TcpSockets;
import io.tcpsight.internal.tcp.TcpState;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The broker's listening sockets: accept-queue length against the effective backlog, and how
 * much each listener's own drops (SO_MEMINFO) and the namespace's listen-overflow and SYN-cookie
 * counters rose over the last {@link #WINDOW_NANOS}. A window rather than the last interval: a
 * connect storm lasts a second, and a finding that vanished one interval later would be missed by
 * anyone who looks later. A listener is named for an overflow only by its own drops; what only
 * the namespace's counters show is judged once, for the namespace, without a listener name.
 */
public final class ListenerWatch {
    static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(5);
    private static final String[] COUNTERS = ListenerMeters.COUNTERS;

    private final Map<Integer, String> listenerByPort;
    private final int ownHttpPort;
    private final ListenerMeters meters = new ListenerMeters();
    /** The namespace's counters per round within the window, oldest first. */
    private final Deque<TcpExtReading> history = new ArrayDeque<>();
    /** listen.backlog: the backlog Kafka's listeners get at run time; 0 when off (the default). */
    private final int deeperBacklog;

    private final Consumer<String> info;
    private final BiConsumer<String, Throwable> failed;
    /** Per listening address: its own drops within the window, oldest first. */
    private final Map<String, Deque<DropReading>> dropHistory = new HashMap<>();
    /** Ports given the deeper backlog, so each is said once. */
    private final Set<Integer> deepened = new HashSet<>();

    private final ListenerCensus census =
            new ListenerCensus(ProcessSocketCensus::listening, TcpSockets::socketInode, ListenerWatch::stillListening);

    ListenerWatch(Map<Integer, String> listenerByPort, int ownHttpPort) {
        this(listenerByPort, ownHttpPort, 0, line -> {}, (what, failure) -> {});
    }

    public ListenerWatch(
            Map<Integer, String> listenerByPort,
            int ownHttpPort,
            int deeperBacklog,
            Consumer<String> info,
            BiConsumer<String, Throwable> failed) {
        this.listenerByPort = listenerByPort;
        this.ownHttpPort = ownHttpPort;
        this.deeperBacklog = deeperBacklog;
        this.info = info;
        this.failed = failed;
    }

    /** One listener's state, for /connections and tests. */
    static final class Listener {
        final ConnectionIdentity identity;
        final ListenQueue queue;
        final int fd;
        /** Found by a census after the agent's first: its socket counted nothing before the agent watched. */
        final boolean openedWhileWatched;

        Listener(ConnectionIdentity identity, ListenQueue queue, int fd, boolean openedWhileWatched) {
            this.identity = identity;
            this.queue = queue;
            this.fd = fd;
            this.openedWhileWatched = openedWhileWatched;
        }
    }

    /** The listener state as meters, bound by the HTTP endpoint. */
    public ListenerMeters meters() {
        return meters;
    }

    /**
     * The listeners now. A connection accepted on any of {@code acceptedPorts} tells of one, and so
     * does a port Kafka's requests named a listener for (a connection that came and went between
     * two rounds still told its listener).
     */
    List<Listener> listeners(Set<Integer> acceptedPorts) throws IOException {
        List<Listener> listeners = new ArrayList<>();
        if (!TcpSockets.availability().isAvailable()) {
            return listeners; // the agent's start line said so: listen queues need TCP_INFO
        }
        Set<Integer> toldOf = new HashSet<>(acceptedPorts);
        toldOf.addAll(listenerByPort.keySet());
        for (ProcessSocket socket : census.current(toldOf, System.nanoTime())) {
            int port = socket.local().getPort();
            if (port == ownHttpPort) {
                continue;
            }
            ListenQueue queue;
            try {
                queue = TcpSockets.tcpInfo(socket.fd()).listenQueue();
            } catch (RuntimeException closedMeanwhile) {
                continue;
            }
            ConnectionIdentity identity = ConnectionIdentity.of(Role.BROKER, socket.local(), null)
                    .withListener(listenerByPort.getOrDefault(port, "port-" + port));
            listeners.add(new Listener(identity, queue, socket.fd(), census.foundAfterFirstCensus(socket)));
        }
        return listeners;
    }

    /** The censuses of the process's descriptors taken so far (one at the start, then only when a listener may be new). */
    long censuses() {
        return census.censuses();
    }

    private static boolean stillListening(int fd) {
        try {
            return TcpSockets.tcpInfo(fd).state() == TcpState.LISTEN;
        } catch (RuntimeException gone) {
            return false;
        }
    }

    /**
     * The local ports of the connections this broker accepted among these: the ports of its listeners, a few.
     * The agent gives the connections a round read: one carried unread was read in rounds before, which told
     * of its port, and its reads every few rounds tell of it again.
     */
    public static Set<Integer> acceptedPorts(List<TrackedConnection> connections) {
        int[] ports = new int[4];
        int count = 0;
        next:
        for (TrackedConnection connection : connections) {
            ConnectionIdentity identity = connection.identity();
            InetSocketAddress local = identity.local().orElse(null);
            if (identity.role() != Role.BROKER || local == null) {
                continue;
            }
            int port = local.getPort();
            for (int i = 0; i < count; i++) {
                if (ports[i] == port) {
                    continue next;
                }
            }
            if (count == ports.length) {
                ports = Arrays.copyOf(ports, count * 2);
            }
            ports[count++] = port;
        }
        Set<Integer> accepted = new HashSet<>();
        for (int i = 0; i < count; i++) {
            accepted.add(ports[i]);
        }
        return accepted;
    }

    public List<Finding> evaluate(TcpsightConfig config, Set<Integer> acceptedPorts) throws IOException {
        TcpExtReading now = TcpExtReading.of(NetstatCounters.read(), System.nanoTime(), COUNTERS);
        while (!history.isEmpty() && now.nanoTime - history.peekFirst().nanoTime > WINDOW_NANOS) {
            history.removeFirst();
        }
        TcpExtReading before = history.isEmpty() ? TcpExtReading.NONE : history.peekFirst();
        history.addLast(now);
        HostTcpFacts host = HostTcpFacts.current();
        Long somaxconn = OptionalValues.orNull(host.somaxconn());
        Long timestamps = OptionalValues.orNull(host.timestamps());
        List<Finding> findings = new ArrayList<>();
        List<Listener> listeners = listeners(acceptedPorts);
        if (deeperBacklog > 0 && deepen(listeners, somaxconn)) {
            listeners = listeners(acceptedPorts); // as the kernel now has them
        }
        List<ListenerState> states = new ArrayList<>(listeners.size());
        for (Listener listener : listeners) {
            states.add(new ListenerState(listener.identity.listener().orElse("unknown"), listener.queue));
        }
        meters.update(states, now);
        Long overflows = OptionalValues.orNull(now.riseSince(before, NetstatCounters.LISTEN_OVERFLOWS));
        Long drops = OptionalValues.orNull(now.riseSince(before, NetstatCounters.LISTEN_DROPS));
        Long cookies = OptionalValues.orNull(now.riseSince(before, NetstatCounters.SYNCOOKIES_SENT));
        boolean everyListenerCounts = !listeners.isEmpty();
        boolean anyListenerDropped = false;
        Set<String> listening = new HashSet<>();
        Listener smallest = null;
        for (Listener listener : listeners) {
            String address =
                    listener.identity.local().map(ConnectionIdentity::address).orElse(null);
            listening.add(address);
            ListenerFacts.Builder facts =
                    facts(listener, listener.identity, somaxconn, timestamps).rises(overflows, drops, cookies);
            OptionalLong ownDrops = ownDrops(listener.fd);
            if (ownDrops.isPresent()) {
                OptionalLong ownRise =
                        ownRise(address, now.nanoTime, ownDrops.getAsLong(), listener.openedWhileWatched);
                facts.ownDrops(OptionalValues.orNull(ownRise));
                anyListenerDropped |= ownRise.orElse(0) > 0;
            } else {
                everyListenerCounts = false;
            }
            findings.addAll(Diagnosis.listener(facts.build(), config));
            if (smallest == null || listener.queue.effectiveBacklog() < smallest.queue.effectiveBacklog()) {
                smallest = listener;
            }
        }
        dropHistory.keySet().retainAll(listening);
        if (smallest != null && !anyListenerDropped) {
            // What no listener's own count explains: the namespace's, named by no listener. Where every
            // listener counts its drops and none dropped, an overflow was another process's; cookies stay.
            ConnectionIdentity namespace = ConnectionIdentity.of(Role.BROKER, null, null);
            ListenerFacts facts = facts(smallest, namespace, somaxconn, timestamps)
                    .rises(everyListenerCounts ? null : overflows, everyListenerCounts ? null : drops, cookies)
                    .build();
            findings.addAll(Diagnosis.listener(facts, config));
        }
        return findings;
    }

    /** A listener's queue and limits, under the identity given (the listener's, or the namespace's). */
    private static ListenerFacts.Builder facts(
            Listener listener, ConnectionIdentity identity, Long somaxconn, Long timestamps) {
        // An effective backlog below somaxconn is the configured one; at somaxconn it may be larger.
        Integer configured = somaxconn != null && listener.queue.effectiveBacklog() < somaxconn
                ? (int) listener.queue.effectiveBacklog()
                : null;
        return ListenerFacts.builder(identity, listener.queue.acceptQueueLength(), listener.queue.effectiveBacklog())
                .configuredBacklog(configured)
                .somaxconn(somaxconn)
                .hostTimestamps(timestamps);
    }

    private static OptionalLong ownDrops(int fd) {
        try {
            return TcpSockets.socketDrops(fd);
        } catch (RuntimeException closedMeanwhile) {
            return OptionalLong.empty();
        }
    }

    /**
     * How much a listener dropped over the window; empty at its first reading or after it was replaced,
     * unless it was opened while the agent watched: then all it counted is the rise.
     */
    private OptionalLong ownRise(String address, long nanoTime, long drops, boolean openedWhileWatched) {
        Deque<DropReading> readings = dropHistory.computeIfAbsent(address, unused -> new ArrayDeque<>());
        if (readings.isEmpty() && openedWhileWatched) {
            readings.addLast(new DropReading(nanoTime, 0));
        }
        while (!readings.isEmpty() && nanoTime - readings.peekFirst().nanoTime > WINDOW_NANOS) {
            readings.removeFirst();
        }
        if (!readings.isEmpty() && drops < readings.peekFirst().drops) {
            readings.clear(); // a new socket on the port counts from zero
        }
        OptionalLong rise =
                readings.isEmpty() ? OptionalLong.empty() : OptionalLong.of(drops - readings.peekFirst().drops);
        readings.addLast(new DropReading(nanoTime, drops));
        return rise;
    }

    /** A listener's own drop count at one moment. */
    private static final class DropReading {
        final long nanoTime;
        final long drops;

        DropReading(long nanoTime, long drops) {
            this.nanoTime = nanoTime;
            this.drops = drops;
        }
    }

    /**
     * listen.backlog, opted into: listen(2) again on each of Kafka's listeners (a port a request named)
     * whose backlog is below min(listen.backlog, net.core.somaxconn); Linux takes the new backlog on
     * the listening socket, with no restart and no connection lost. Said once per port.
     */
    private boolean deepen(List<Listener> listeners, Long somaxconn) {
        long target = somaxconn == null ? deeperBacklog : Math.min(deeperBacklog, somaxconn);
        boolean changed = false;
        for (Listener listener : listeners) {
            int port = listener.identity.local().orElseThrow().getPort();
            if (!listenerByPort.containsKey(port) || listener.queue.effectiveBacklog() >= target) {
                continue;
            }
            try {
                HostKernelCalls.relisten(listener.fd, (int) target);
                changed = true;
                if (deepened.size() < 64 && deepened.add(port)) {
                    info.accept("tcpsight agent: listener " + listenerByPort.get(port) + " (port " + port
                            + ") now has a listen backlog of " + target + " (was " + listener.queue.effectiveBacklog()
                            + "), as listen.backlog=" + deeperBacklog + " asked"
                            + (somaxconn != null && somaxconn < deeperBacklog
                                    ? " (capped by net.core.somaxconn " + somaxconn + ")"
                                    : ""));
                }
            } catch (RuntimeException refused) {
                failed.accept("listen.backlog on port " + port, refused);
            }
        }
        return changed;
    }
}
