package io.tcpsight.agent;

import io.tcpsight.config.TcpsightConfig;
import io.tcpsight.connection.ConnectionIdentity;
import io.tcpsight.connection.Role;
import io.tcpsight.diagnose.Diagnosis;
import io.tcpsight.diagnose.Finding;
import io.tcpsight.diagnose.ListenerFacts;
import io.tcpsight.host.HostTcpFacts;
import io.tcpsight.host.NetstatCounters;
import io.tcpsight.tcp.ListenQueue;
import io.tcpsight.tcp.ProcessSocket;
import io.tcpsight.tcp.ProcessSocketCensus;
import io.tcpsight.tcp.TcpSockets;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The broker's listening sockets: accept-queue length against the effective backlog, and the
 * namespace's listen-overflow and SYN-cookie counters over each interval.
 */
final class ListenerWatch {
    private final Map<Integer, String> listenerByPort;
    private final int ownHttpPort;
    private NetstatCounters previous;

    ListenerWatch(Map<Integer, String> listenerByPort, int ownHttpPort) {
        this.listenerByPort = listenerByPort;
        this.ownHttpPort = ownHttpPort;
    }

    /** One listener's state, for /connections and tests. */
    static final class Listener {
        final ConnectionIdentity identity;
        final ListenQueue queue;

        Listener(ConnectionIdentity identity, ListenQueue queue) {
            this.identity = identity;
            this.queue = queue;
        }
    }

    List<Listener> listeners() throws IOException {
        List<Listener> listeners = new ArrayList<>();
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
            listeners.add(new Listener(identity, queue));
        }
        return listeners;
    }

    List<Finding> evaluate(TcpsightConfig config) throws IOException {
        NetstatCounters now = NetstatCounters.read();
        NetstatCounters before = previous;
        previous = now;
        HostTcpFacts host = HostTcpFacts.current();
        Long somaxconn = host.somaxconn().isPresent() ? host.somaxconn().getAsLong() : null;
        Long timestamps = host.timestamps().isPresent() ? host.timestamps().getAsLong() : null;
        List<Finding> findings = new ArrayList<>();
        for (Listener listener : listeners()) {
            // An effective backlog below somaxconn is the configured one; at somaxconn it may be larger.
            Integer configured = somaxconn != null && listener.queue.effectiveBacklog() < somaxconn ? (int) listener.queue.effectiveBacklog() : null;
            ListenerFacts facts = new ListenerFacts(listener.identity, listener.queue.acceptQueueLength(), listener.queue.effectiveBacklog(),
                    configured, somaxconn, delta(now, before, NetstatCounters.LISTEN_OVERFLOWS), delta(now, before, NetstatCounters.LISTEN_DROPS),
                    delta(now, before, NetstatCounters.SYNCOOKIES_SENT), timestamps);
            findings.addAll(Diagnosis.listener(facts, config));
        }
        return findings;
    }

    /** Counters are per network namespace, so every listener of this broker shares them. */
    private static Long delta(NetstatCounters now, NetstatCounters before, String counter) {
        if (before == null) {
            return null;
        }
        OptionalLong current = now.tcpExt(counter);
        OptionalLong earlier = before.tcpExt(counter);
        return current.isPresent() && earlier.isPresent() ? Math.max(0, current.getAsLong() - earlier.getAsLong()) : null;
    }
}
