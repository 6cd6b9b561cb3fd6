package io.tcpsight.internal.sampling;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.tcp.ProcessSocket;
import io.tcpsight.internal.tcp.ProcessSocketCensus;
import io.tcpsight.internal.tcp.TcpState;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Keeps a registry in step with this process's sockets when nothing hooks their open and close:
 * each refresh takes the census, tracks new established sockets that belong, and releases
 * tracked ones that are gone (or whose descriptor now holds another socket).
 */
public final class CensusTracker {
    private final ConnectionRegistry registry;
    private final Predicate<ProcessSocket> belongs;
    private final Function<ProcessSocket, ConnectionIdentity> identify;

    public CensusTracker(
            ConnectionRegistry registry,
            Predicate<ProcessSocket> belongs,
            Function<ProcessSocket, ConnectionIdentity> identify) {
        this.registry = registry;
        this.belongs = belongs;
        this.identify = identify;
    }

    /** A client-side identity from a census entry. */
    public static ConnectionIdentity clientIdentity(ProcessSocket socket, String clientId) {
        return ConnectionIdentity.of(Role.CLIENT, socket.local(), socket.remote())
                .withClientId(clientId);
    }

    public void refresh() throws IOException {
        List<ProcessSocket> census = ProcessSocketCensus.take();
        Map<Integer, ProcessSocket> present = new HashMap<>();
        for (ProcessSocket socket : census) {
            if (socket.state() == TcpState.ESTABLISHED && belongs.test(socket)) {
                present.put(socket.fd(), socket);
            }
        }
        for (TrackedConnection connection : registry.connections()) {
            ProcessSocket socket = present.get(connection.fd());
            if (socket == null || socket.inode() != connection.inode()) {
                registry.release(connection);
            }
        }
        for (ProcessSocket socket : present.values()) {
            TrackedConnection known = registry.get(socket.fd()).orElse(null);
            if (known == null || known.inode() != socket.inode()) {
                registry.track(socket.fd(), socket.inode(), identify.apply(socket));
            }
        }
        registry.untrackedStillOpen(present.keySet());
    }
}
