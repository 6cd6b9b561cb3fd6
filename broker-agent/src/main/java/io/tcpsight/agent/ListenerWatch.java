package io.tcpsight.agent;

import io.tcpsight.config.TcpsightConfig;
import io.tcpsight.diagnose.Diagnosis;
import io.tcpsight.diagnose.Finding;
import io.tcpsight.host.HostTcpFacts;
import io.tcpsight.host.NetstatCounters;
import io.tcpsight.model.ConnectionIdentity;
import io.tcpsight.model.ListenerFacts;
import io.tcpsight.model.OptionalValues;
import io.tcpsight.model.Role;
import io.tcpsight.tcp.HostKernelCalls;
import io.tcpsight.tcp.ListenQueue;
import io.tcpsight.tcp.ProcessSocket;
import io.tcpsight.tcp.ProcessSocketCensus;
import io.tcpsight.tcp.TcpSockets;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
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
 * much the namespace's listen-overflow and SYN-cookie counters rose over the last
 * {@link #WINDOW_NANOS}. A window rather than the last interval: a connect storm lasts a second,
 * and a finding that vanished one interval later would be missed by anyone who looks later.
 */
final class ListenerWatch {
    static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(5);
    private static final String[] COUNTERS = ListenerMeters.COUNTERS;

    private final Map<Integer, String> listenerByPort;
    private final int ownHttpPort;
    private final ListenerMeters meters = new ListenerMeters();
    /** (nanoTime, counters) per round within the window, oldest first; only the three counters are kept. */
    private final Deque<long[]> history = new ArrayDeque<>();
    /** listen.backlog: the backlog Kafka's listeners get at run time; 0 when off (the default). */
    private final int deeperBacklog;

    private final Consumer<String> info;
    private final BiConsumer<String, Throwable> failed;
    /** Ports given the deeper backlog, so each is said once. */
    private final Set<Integer> deepened = new HashSet<>();

    ListenerWatch(Map<Integer, String> listenerByPort, int ownHttpPort) {
        this(listenerByPort, ownHttpPort, 0, line -> {}, (what, failure) -> {});
    }

    ListenerWatch(
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

        Listener(ConnectionIdentity identity, ListenQueue queue, int fd) {
            this.identity = identity;
            this.queue = queue;
            this.fd = fd;
        }
    }

    /** The listener state as meters, bound by the HTTP endpoint. */
    ListenerMeters meters() {
        return meters;
    }

    List<Listener> listeners() throws IOException {
        List<Listener> listeners = new ArrayList<>();
        if (!TcpSockets.availability().isAvailable()) {
            return listeners; // the agent's start line said so: listen queues need TCP_INFO
        }
        for (ProcessSocket socket : ProcessSocketCensus.listening()) {
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
            ConnectionIdentity identity = ConnectionIdentity.of(Role.BROKER, socket.local(), null, Instant.now())
                    .withListener(listenerByPort.getOrDefault(port, "port-" + port));
            listeners.add(new Listener(identity, queue, socket.fd()));
        }
        return listeners;
    }

    List<Finding> evaluate(TcpsightConfig config) throws IOException {
        long[] now = snapshot(NetstatCounters.read(), System.nanoTime());
        while (!history.isEmpty() && now[0] - history.peekFirst()[0] > WINDOW_NANOS) {
            history.removeFirst();
        }
        long[] before = history.peekFirst();
        history.addLast(now);
        HostTcpFacts host = HostTcpFacts.current();
        Long somaxconn = OptionalValues.orNull(host.somaxconn());
        Long timestamps = OptionalValues.orNull(host.timestamps());
        List<Finding> findings = new ArrayList<>();
        List<Listener> listeners = listeners();
        if (deeperBacklog > 0 && deepen(listeners, somaxconn)) {
            listeners = listeners(); // as the kernel now has them
        }
        List<ListenerState> states = new ArrayList<>(listeners.size());
        for (Listener listener : listeners) {
            states.add(new ListenerState(listener.identity.listener().orElse("unknown"), listener.queue));
        }
        meters.update(states, Arrays.copyOfRange(now, 1, now.length));
        for (Listener listener : listeners) {
            // An effective backlog below somaxconn is the configured one; at somaxconn it may be larger.
            Integer configured = somaxconn != null && listener.queue.effectiveBacklog() < somaxconn
                    ? (int) listener.queue.effectiveBacklog()
                    : null;
            ListenerFacts facts = ListenerFacts.builder(
                            listener.identity, listener.queue.acceptQueueLength(), listener.queue.effectiveBacklog())
                    .configuredBacklog(configured)
                    .somaxconn(somaxconn)
                    .rises(rise(now, before, 1), rise(now, before, 2), rise(now, before, 3))
                    .hostTimestamps(timestamps)
                    .build();
            findings.addAll(Diagnosis.listener(facts, config));
        }
        return findings;
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
            int port = listener.identity.local().getPort();
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

    /** nanoTime, then each of {@link #COUNTERS}, -1 where this kernel lacks it. */
    private static long[] snapshot(NetstatCounters counters, long nanoTime) {
        long[] values = new long[COUNTERS.length + 1];
        values[0] = nanoTime;
        for (int i = 0; i < COUNTERS.length; i++) {
            OptionalLong value = counters.tcpExt(COUNTERS[i]);
            values[i + 1] = value.isPresent() ? value.getAsLong() : -1;
        }
        return values;
    }

    /** Counters are per network namespace, so every listener of this broker shares them. */
    private static Long rise(long[] now, long[] before, int index) {
        if (before == null || now[index] < 0 || before[index] < 0) {
            return null;
        }
        return Math.max(0, now[index] - before[index]);
    }
}
