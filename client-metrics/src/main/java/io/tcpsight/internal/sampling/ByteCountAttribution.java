package io.tcpsight.internal.sampling;

import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ClientConnectionIds;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.OwnerKnownBy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Tells which Kafka client owns a socket without hooking Kafka, and only when it is certain.
 * Every client publishes, per connection ("node-N"), the bytes it has read and written; the
 * kernel counts the same bytes per socket (tcpi_bytes_received, tcpi_bytes_acked). In plaintext
 * the two are equal once the socket's queues are counted in (what the application read and
 * wrote, at the kernel sample, lies between the client's reads before and after it): that is an
 * exact match, and the true pair always has it. A socket is named
 * after {@link #ROUNDS_TO_NAME} rounds in which it and one client connection matched exactly and
 * only each other, with no round between that contradicts the pair. A named socket is checked
 * every round and loses its name at the first contradiction (counts that cannot be the pair's, or
 * an exact match with anyone else). Under TLS the counts never agree (the kernel counts records
 * and handshakes), so nothing is named there; sockets whose counts tie (idle ones) stay unnamed.
 *
 * <p>One instance per observer, fed once per round on its sampling thread.
 */
public final class ByteCountAttribution {
    /** Rounds of an exact, one-to-one match before a name is given. */
    public static final int ROUNDS_TO_NAME = 3;
    /**
     * Largest count still consistent with a named pair: bytes queued in the kernel between the reads,
     * at most one receive or send buffer (tcp_rmem/tcp_wmem max; 6 MiB and 4 MiB by default).
     */
    public static final long QUEUE_BOUND_BYTES = 8L << 20;

    /** What is known of each socket that was seen last round, by socket. */
    private final Map<Long, SocketState> sockets = new HashMap<>();

    /** One side of a client's per-connection metrics, read just before and just after the kernel sample. */
    public static final class ClientConnection {
        /**
         * The client's type as its metrics group says ("consumer", "producer", "admin-client", ...): two
         * clients of different types may share a client.id (Connect's offsets producer and consumer do).
         */
        public final String type;

        public final String clientId;
        public final String nodeId;
        final long readBefore;
        final long readAfter;
        final long writtenBefore;
        final long writtenAfter;
        /** What the client's type carries: a consumer fetches, a producer produces, an admin client neither. */
        public final BulkFlow flow;

        /** One read of the client's totals, taken as both sides of the bracket. */
        public ClientConnection(
                String type, String clientId, String nodeId, long bytesRead, long bytesWritten, BulkFlow flow) {
            this(type, clientId, nodeId, bytesRead, bytesRead, bytesWritten, bytesWritten, flow);
        }

        /** The same, for a client of no particular type. */
        public ClientConnection(String clientId, String nodeId, long bytesRead, long bytesWritten, BulkFlow flow) {
            this("", clientId, nodeId, bytesRead, bytesWritten, flow);
        }

        ClientConnection(
                String type,
                String clientId,
                String nodeId,
                long readBefore,
                long readAfter,
                long writtenBefore,
                long writtenAfter,
                BulkFlow flow) {
            this.type = type;
            this.clientId = clientId;
            this.nodeId = nodeId;
            this.readBefore = readBefore;
            this.readAfter = readAfter;
            this.writtenBefore = writtenBefore;
            this.writtenAfter = writtenAfter;
            this.flow = flow;
        }

        /** One connection of one client: its type, client.id and Kafka connection id. */
        String key() {
            return type + "/" + clientId + "/" + nodeId;
        }

        /**
         * The identity change that names a socket as this connection's (certain: by byte counts);
         * {@code knownBroker} is the socket's broker node where a directory knows it.
         */
        public UnaryOperator<ConnectionIdentity> naming(String knownBroker) {
            String broker = knownBroker != null ? knownBroker : ClientConnectionIds.brokerNode(nodeId);
            return identity -> {
                ConnectionIdentity named = identity.withClientId(clientId).ownerKnownBy(OwnerKnownBy.BYTE_COUNTS);
                named = flow == BulkFlow.UNKNOWN ? named : named.withFlow(flow);
                return broker == null || broker.equals(ClientConnectionIds.BOOTSTRAP)
                        ? named
                        : named.withNodeId(broker);
            };
        }

        ClientConnection as(String groupClientId) {
            return new ClientConnection(
                    type, groupClientId, nodeId, readBefore, readAfter, writtenBefore, writtenAfter, flow);
        }

        @Override
        public String toString() {
            return clientId + "/node-" + nodeId + " read=" + readBefore + ".." + readAfter + " written=" + writtenBefore
                    + ".." + writtenAfter;
        }
    }

    /** One socket as the kernel counts it; {@code brokerNodeId} when its peer is a known broker, else null. */
    public static final class SocketCounts {
        final long socket;
        final String brokerNodeId;
        final long bytesReceived;
        final long bytesAcked;
        /** Received and not yet read by the application; -1 when unknown. */
        final long unreadBytes;
        /** Written and not yet acknowledged; -1 when unknown. */
        final long unackedBytes;

        /** {@code socket} tells sockets apart across rounds: its inode. Queues unknown. */
        public SocketCounts(long socket, String brokerNodeId, long bytesReceived, long bytesAcked) {
            this(socket, brokerNodeId, bytesReceived, bytesAcked, -1, -1);
        }

        public SocketCounts(
                long socket,
                String brokerNodeId,
                long bytesReceived,
                long bytesAcked,
                long unreadBytes,
                long unackedBytes) {
            this.socket = socket;
            this.brokerNodeId = brokerNodeId;
            this.bytesReceived = bytesReceived;
            this.bytesAcked = bytesAcked;
            this.unreadBytes = unreadBytes;
            this.unackedBytes = unackedBytes;
        }

        /**
         * A connection's counts as its round's sample read them (for a namer, which runs right after
         * sampling, on the round's thread), keyed by its inode; empty where the sample has not both byte counts.
         */
        public static Optional<SocketCounts> of(TrackedConnection sampled, String brokerNodeId) {
            ConnectionSample sample = sampled.latest().orElse(null);
            if (sample == null
                    || sample.bytesReceived().isEmpty()
                    || sample.bytesAcked().isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(of(sampled.inode(), brokerNodeId, sample));
        }

        /** A sampled socket's counts, with its queues when the sample has them. */
        public static SocketCounts of(long socket, String brokerNodeId, ConnectionSample sample) {
            return new SocketCounts(
                    socket,
                    brokerNodeId,
                    sample.bytesReceived().orElse(0),
                    sample.bytesAcked().orElse(0),
                    sample.unreadBytes().orElse(-1),
                    sample.unackedBytes().orElse(-1));
        }

        boolean queuesKnown() {
            return unreadBytes >= 0 && unackedBytes >= 0;
        }

        @Override
        public String toString() {
            return socket + "@" + brokerNodeId + " rcv=" + bytesReceived + "-" + unreadBytes + " acked=" + bytesAcked
                    + "+" + unackedBytes;
        }
    }

    private static final class SocketState {
        /** The owner this socket matched exactly and alone, as a set of client keys (more than one: a connector's tasks). */
        Set<String> candidate = Set.of();

        ClientConnection candidateOwner;
        int exactRounds;
        boolean named;
    }

    /**
     * One round. {@code clients} are those whose counts can equal the kernel's (plaintext clients
     * only). Returns the owner of every socket that is named now, by socket; a socket left out has
     * no certain owner, whatever it was given before.
     */
    public Map<Long, ClientConnection> round(List<SocketCounts> socketCounts, List<ClientConnection> clients) {
        Map<Long, List<ClientConnection>> exactBySocket = new HashMap<>();
        Map<String, List<Long>> exactByClient = new HashMap<>();
        Map<String, ClientConnection> clientsByKey = new HashMap<>();
        for (ClientConnection client : clients) {
            clientsByKey.put(client.key(), client);
        }
        for (SocketCounts socket : socketCounts) {
            for (ClientConnection client : clients) {
                if (exact(socket, client)) {
                    exactBySocket
                            .computeIfAbsent(socket.socket, any -> new ArrayList<>())
                            .add(client);
                    exactByClient
                            .computeIfAbsent(client.key(), any -> new ArrayList<>())
                            .add(socket.socket);
                }
            }
        }
        Set<Long> seen = new HashSet<>();
        Map<Long, ClientConnection> owners = new HashMap<>();
        for (SocketCounts socket : socketCounts) {
            seen.add(socket.socket);
            SocketState state = sockets.computeIfAbsent(socket.socket, any -> new SocketState());
            Candidate now = candidate(socket.socket, exactBySocket, exactByClient);
            if (now != null && overlaps(now.clients, state.candidate)) {
                // the same owner, or one connector's tasks that now tie with it (or no longer do): the name is
                // as certain as this round's match, so it follows it
                state.exactRounds++;
                state.candidate = now.clients;
                state.candidateOwner = now.owner;
            } else if (now != null) {
                state.candidate = now.clients;
                state.candidateOwner = now.owner;
                state.exactRounds = 1;
                state.named = false;
            } else if (!state.candidate.isEmpty()
                    && (othersMatchExactly(state.candidate, socket.socket, exactByClient)
                            || !consistentWithAny(socket, state.candidate, clientsByKey)
                            || (!socket.queuesKnown() && exactBySocket.containsKey(socket.socket)))) {
                state.candidate = Set.of(); // a contradiction: what it was thought to be, it cannot be
                state.candidateOwner = null;
                state.exactRounds = 0;
                state.named = false;
            }
            if (state.exactRounds >= ROUNDS_TO_NAME) {
                state.named = true;
            }
            if (state.named) {
                owners.put(socket.socket, state.candidateOwner);
            }
        }
        sockets.keySet().retainAll(seen);
        return owners;
    }

    /** Takes back a name byte counts gave: the owner, and the flow it implied. */
    public static ConnectionIdentity unnamed(ConnectionIdentity identity) {
        return identity.withClientId(null).withFlow(BulkFlow.UNKNOWN).ownerKnownBy(OwnerKnownBy.UNPLACED);
    }

    /** Forgets a socket (released or closed); it starts again if seen again. */
    public void forget(long socket) {
        sockets.remove(socket);
    }

    /**
     * The owner a socket matched exactly this round, alone: one client connection that matched no
     * other socket, or the tasks of one connector whose connections matched exactly these sockets
     * and no more sockets than they are (identical counts among one connector's tasks).
     */
    private static Candidate candidate(
            long socket, Map<Long, List<ClientConnection>> exactBySocket, Map<String, List<Long>> exactByClient) {
        List<ClientConnection> matches = exactBySocket.get(socket);
        if (matches == null) {
            return null;
        }
        if (matches.size() == 1) {
            ClientConnection only = matches.get(0);
            return exactByClient.get(only.key()).size() == 1 ? new Candidate(Set.of(only.key()), only) : null;
        }
        // the component of the exact-match graph this socket is in
        Set<Long> componentSockets = new LinkedHashSet<>();
        Map<String, ClientConnection> componentClients = new HashMap<>();
        List<Long> pending = new ArrayList<>(List.of(socket));
        while (!pending.isEmpty()) {
            long next = pending.remove(pending.size() - 1);
            if (!componentSockets.add(next)) {
                continue;
            }
            for (ClientConnection client : exactBySocket.getOrDefault(next, List.of())) {
                if (componentClients.put(client.key(), client) == null) {
                    pending.addAll(exactByClient.get(client.key()));
                }
            }
        }
        if (componentSockets.size() > componentClients.size()) {
            return null; // more sockets than owners: at least one is someone else's
        }
        Set<String> clientIds = new HashSet<>();
        componentClients.values().forEach(client -> clientIds.add(client.clientId));
        String connector = commonConnectorClient(clientIds);
        return connector == null
                ? null
                : new Candidate(componentClients.keySet(), matches.get(0).as(connector));
    }

    /** One holds the other: the same client connection, or a connector's tasks that include it. */
    private static boolean overlaps(Set<String> now, Set<String> before) {
        return !before.isEmpty() && (now.containsAll(before) || before.containsAll(now));
    }

    private static boolean othersMatchExactly(Set<String> candidate, long socket, Map<String, List<Long>> byClient) {
        for (String client : candidate) {
            for (long other : byClient.getOrDefault(client, List.of())) {
                if (other != socket) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean consistentWithAny(
            SocketCounts socket, Set<String> candidate, Map<String, ClientConnection> clients) {
        for (String key : candidate) {
            ClientConnection client = clients.get(key);
            if (client != null && consistent(socket, client)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The counts are the pair's at the instant of the kernel sample. With the socket's queues known:
     * what the application had read (received less the receive queue) lies between the client's
     * reads before and after, and so does what it had written (acknowledged plus the send queue; one
     * less where the kernel counts the SYN). The true pair always agrees so, busy or idle. Without
     * the queues: nothing in flight and every count equal.
     */
    static boolean exact(SocketCounts socket, ClientConnection client) {
        if (!sameBroker(socket, client)) {
            return false;
        }
        if (socket.queuesKnown()) {
            // what the application had read (received less the receive queue) and written (acknowledged plus the
            // send queue) at the sample
            long read = socket.bytesReceived - socket.unreadBytes;
            long written = socket.bytesAcked + socket.unackedBytes;
            return client.readBefore <= read
                    && read <= client.readAfter
                    && (between(written, client) || between(written - 1, client));
        }
        return client.readBefore == client.readAfter
                && client.readAfter == socket.bytesReceived
                && client.writtenBefore == client.writtenAfter
                && (socket.bytesAcked == client.writtenAfter || socket.bytesAcked == client.writtenAfter + 1);
    }

    private static boolean between(long written, ClientConnection client) {
        return client.writtenBefore <= written && written <= client.writtenAfter;
    }

    /**
     * Counts the pair can have: the client cannot have read more than the kernel received before it
     * read, nor the peer acknowledged more than the client wrote, and what lies between is at most
     * what the socket's queues can hold.
     */
    static boolean consistent(SocketCounts socket, ClientConnection client) {
        long unread = socket.bytesReceived - client.readAfter;
        long unacked = client.writtenBefore - socket.bytesAcked;
        return sameBroker(socket, client)
                && client.readBefore <= socket.bytesReceived
                && socket.bytesAcked <= client.writtenAfter + 1
                && unread <= QUEUE_BOUND_BYTES
                && unacked <= QUEUE_BOUND_BYTES;
    }

    /**
     * One view of every client connection from two reads that bracket the kernel sample. A
     * connection absent from the earlier read is taken as the later read shows it, both sides.
     */
    public static List<ClientConnection> bracket(List<ClientConnection> before, List<ClientConnection> after) {
        Map<String, ClientConnection> earlier = new HashMap<>();
        for (ClientConnection connection : before) {
            earlier.put(connection.key(), connection);
        }
        List<ClientConnection> bracketed = new ArrayList<>(after.size());
        for (ClientConnection later : after) {
            ClientConnection first = earlier.get(later.key());
            bracketed.add(
                    first == null
                            ? later
                            : new ClientConnection(
                                    later.type,
                                    later.clientId,
                                    later.nodeId,
                                    first.readBefore,
                                    later.readAfter,
                                    first.writtenBefore,
                                    later.writtenAfter,
                                    later.flow));
        }
        return bracketed;
    }

    /** Whether a client's connection (by its Kafka connection id) can be one to this socket's broker. */
    private static boolean sameBroker(SocketCounts socket, ClientConnection client) {
        if (socket.brokerNodeId == null) {
            return true;
        }
        String node = ClientConnectionIds.brokerNode(client.nodeId);
        return node == null || node.equals(ClientConnectionIds.BOOTSTRAP) || node.equals(socket.brokerNodeId);
    }

    /** "connector-consumer-slow-*" when every id is a task client of connector slow; else null. */
    private static String commonConnectorClient(Set<String> clientIds) {
        String common = null;
        for (String clientId : clientIds) {
            String group = clientId.replaceFirst("-\\d+$", "-*");
            if (!group.startsWith("connector-")
                    || group.equals(clientId)
                    || (common != null && !common.equals(group))) {
                return null;
            }
            common = group;
        }
        return common;
    }

    private static final class Candidate {
        final Set<String> clients;
        final ClientConnection owner;

        Candidate(Set<String> clients, ClientConnection owner) {
            this.clients = clients;
            this.owner = owner;
        }
    }
}
