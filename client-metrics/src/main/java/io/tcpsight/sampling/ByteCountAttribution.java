package io.tcpsight.sampling;

import io.tcpsight.model.BulkFlow;
import io.tcpsight.model.ClientConnectionIds;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Tells which Kafka client owns a socket without hooking Kafka: every client publishes, per
 * connection ("node-N"), the bytes it has read and written; the kernel counts the same bytes per
 * socket (tcpi_bytes_received, tcpi_bytes_acked). For plaintext connections the two agree
 * exactly when idle, and differ by what still sits in the socket queues when busy. Pure; the
 * caller reads the clients' side just before and just after the kernel's (see {@link #bracket}).
 */
public final class ByteCountAttribution {
    /** Largest gap still taken as "the same connection": bytes queued in the kernel between the two reads. */
    public static final long TOLERANCE_BYTES = 8L << 20;

    private ByteCountAttribution() {}

    /** One side of a client's per-connection metrics. */
    public static final class ClientConnection {
        public final String clientId;
        public final String nodeId;
        public final long bytesRead;
        public final long bytesWritten;
        /** What the client's type carries: a consumer fetches, a producer produces, an admin client neither. */
        public final BulkFlow flow;

        public ClientConnection(String clientId, String nodeId, long bytesRead, long bytesWritten, BulkFlow flow) {
            this.clientId = clientId;
            this.nodeId = nodeId;
            this.bytesRead = bytesRead;
            this.bytesWritten = bytesWritten;
            this.flow = flow;
        }

        @Override
        public String toString() {
            return clientId + "/node-" + nodeId + " read=" + bytesRead + " written=" + bytesWritten;
        }
    }

    /** One socket as the kernel counts it; {@code brokerNodeId} when its peer is a known broker, else null. */
    public static final class SocketCounts {
        final int fd;
        final String brokerNodeId;
        final long bytesReceived;
        final long bytesAcked;

        public SocketCounts(int fd, String brokerNodeId, long bytesReceived, long bytesAcked) {
            this.fd = fd;
            this.brokerNodeId = brokerNodeId;
            this.bytesReceived = bytesReceived;
            this.bytesAcked = bytesAcked;
        }
    }

    /**
     * Pairs sockets with client connections, closest byte counts first, each used once. A socket
     * whose best match ties with another client's is given the connector ("-*") when all tied
     * clients are tasks of one connector (that connection under the connector's id), and left out
     * otherwise (a later round tells them apart).
     *
     * @return the client connection each socket was given, by socket fd
     */
    public static Map<Integer, ClientConnection> attributeConnections(
            List<SocketCounts> sockets, List<ClientConnection> clients) {
        List<Candidate> candidates = new ArrayList<>();
        for (SocketCounts socket : sockets) {
            for (ClientConnection client : clients) {
                long distance = distance(socket, client);
                if (distance >= 0) {
                    candidates.add(new Candidate(socket, client, distance));
                }
            }
        }
        candidates.sort(Comparator.comparingLong(candidate -> candidate.distance));
        Map<Integer, List<Candidate>> bestBySocket = new HashMap<>();
        for (Candidate candidate : candidates) {
            List<Candidate> best = bestBySocket.computeIfAbsent(candidate.socket.fd, fd -> new ArrayList<>());
            if (best.isEmpty() || best.get(0).distance == candidate.distance) {
                best.add(candidate);
            }
        }
        Map<Integer, ClientConnection> owners = new HashMap<>();
        Set<ClientConnection> used = new HashSet<>();
        Set<Integer> decided = new HashSet<>();
        for (Candidate candidate : candidates) {
            int fd = candidate.socket.fd;
            if (decided.contains(fd) || used.contains(candidate.client)) {
                continue;
            }
            List<Candidate> best = bestBySocket.get(fd);
            if (candidate.distance != best.get(0).distance) {
                continue; // its best partners went to other sockets; a later round decides
            }
            Set<String> tiedClients = new HashSet<>();
            for (Candidate tied : best) {
                if (!used.contains(tied.client)) {
                    tiedClients.add(tied.client.clientId);
                }
            }
            decided.add(fd);
            if (tiedClients.size() <= 1) {
                used.add(candidate.client);
                owners.put(fd, candidate.client);
            } else {
                String connector = commonConnectorClient(tiedClients);
                if (connector != null) {
                    used.add(candidate.client);
                    ClientConnection client = candidate.client;
                    owners.put(
                            fd,
                            new ClientConnection(
                                    connector, client.nodeId, client.bytesRead, client.bytesWritten, client.flow));
                }
            }
        }
        return owners;
    }

    /**
     * One view of every client connection from two JMX reads that bracket the kernel sample: bytes
     * read as of the read before it, bytes written as of the read after it. Kafka cannot have read
     * more than the kernel had received by then, nor written less than the peer had acknowledged,
     * so the true pair never looks impossible however fast the connection streams (a single read
     * after the sample made a busy consumer's socket look as if Kafka had read more than the
     * kernel received, and it stayed unnamed). A connection absent from the earlier read is taken
     * as the later read shows it.
     */
    public static List<ClientConnection> bracket(List<ClientConnection> before, List<ClientConnection> after) {
        Map<String, ClientConnection> earlier = new HashMap<>();
        for (ClientConnection connection : before) {
            earlier.put(connection.clientId + "/" + connection.nodeId, connection);
        }
        List<ClientConnection> bracketed = new ArrayList<>(after.size());
        for (ClientConnection later : after) {
            ClientConnection first = earlier.get(later.clientId + "/" + later.nodeId);
            bracketed.add(
                    first == null
                            ? later
                            : new ClientConnection(
                                    later.clientId, later.nodeId, first.bytesRead, later.bytesWritten, later.flow));
        }
        return bracketed;
    }

    /** -1 when the two cannot be the same connection. */
    static long distance(SocketCounts socket, ClientConnection client) {
        if (socket.brokerNodeId != null && !sameBroker(socket.brokerNodeId, client.nodeId)) {
            return -1;
        }
        long unread = socket.bytesReceived - client.bytesRead; // received by the kernel, not yet read by Kafka
        long unacked = client.bytesWritten - socket.bytesAcked; // written by Kafka, not yet acknowledged by the peer
        if (unread < 0 || unacked < -1 || unread > TOLERANCE_BYTES || unacked > TOLERANCE_BYTES) {
            return -1; // -1: the SYN counts as one acknowledged byte on some kernels
        }
        return unread + Math.abs(unacked);
    }

    /** Whether a client's connection (by its Kafka connection id) can be one to this broker: a bootstrap connection can. */
    static boolean sameBroker(String brokerNodeId, String clientNodeId) {
        String node = ClientConnectionIds.brokerNode(clientNodeId);
        return node == null || node.equals(ClientConnectionIds.BOOTSTRAP) || node.equals(brokerNodeId);
    }

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
        final SocketCounts socket;
        final ClientConnection client;
        final long distance;

        Candidate(SocketCounts socket, ClientConnection client, long distance) {
            this.socket = socket;
            this.client = client;
            this.distance = distance;
        }
    }
}
