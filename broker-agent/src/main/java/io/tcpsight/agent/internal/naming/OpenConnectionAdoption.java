package io.tcpsight.agent.internal.naming;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.ProcessSocket;
import io.tcpsight.internal.tcp.ProcessSocketCensus;
import io.tcpsight.internal.tcp.TcpState;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

/**
 * Tracks the established connections this process already holds that no hook reported: on an
 * attach to a running JVM every existing connection predates the hooks. Accepted ones (the local
 * port is one of this process's listeners) are attributed at their next request.
 */
final class OpenConnectionAdoption {
    private OpenConnectionAdoption() {}

    /** Returns how many were adopted; {@code ownPort} (the agent's HTTP endpoint) is never adopted. */
    static int adopt(ConnectionRegistry registry, BrokerConnectionIds ids, int ownPort) throws IOException {
        Set<Integer> listeningPorts = new HashSet<>();
        for (ProcessSocket listener : ProcessSocketCensus.listening()) {
            if (listener.local() != null) {
                listeningPorts.add(listener.local().getPort());
            }
        }
        int adopted = 0;
        for (ProcessSocket socket : ProcessSocketCensus.take()) {
            if (socket.state() != TcpState.ESTABLISHED
                    || socket.local() == null
                    || socket.remote() == null
                    || socket.local().getPort() == ownPort
                    || registry.get(socket.fd()).isPresent()) {
                continue;
            }
            boolean accepted = listeningPorts.contains(socket.local().getPort());
            ConnectionIdentity identity =
                    ConnectionIdentity.of(accepted ? Role.BROKER : Role.CLIENT, socket.local(), socket.remote());
            TrackedConnection tracked =
                    registry.track(socket.fd(), socket.inode(), identity).orElse(null);
            if (tracked == null) {
                continue;
            }
            adopted++;
            if (accepted) {
                ids.adopted(socket.local(), socket.remote(), tracked);
            }
        }
        return adopted;
    }
}
