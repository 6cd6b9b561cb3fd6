package io.tcpsight.agent.internal.naming;

import io.tcpsight.agent.internal.hooks.Hooks;
import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ClientConnectionIds;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.model.SharedValues;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.TcpSocketException;
import io.tcpsight.internal.tcp.TcpSockets;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.function.BiConsumer;

/**
 * How a connection gets its name: receives the hooks' calls and keeps the registry of Kafka
 * connections in step with them. A broker-side connection is named by its requests (client.id,
 * principal, listener, client software, what it fetches or produces), a client-side one by its
 * network client's client.id and connection id; connections open before the hooks are adopted
 * from the process census. Nothing else: the agent's startup assembles it with the rest.
 */
public final class AgentRuntime implements Hooks.Receiver {
    private final ConnectionRegistry registry;
    private final BrokerConnectionIds brokerIds;
    /** One copy of the client.ids, principals and client software that many connections carry. */
    private final SharedValues<String> names = new SharedValues<>(16_384);

    private final Map<Object, String> clientIdBySelector = Collections.synchronizedMap(new WeakHashMap<>());
    private final Map<Integer, String> listenerByPort;
    private final Runnable connecting;
    private final String congestion;
    private final int ownHttpPort;
    private final boolean nativeAvailable;
    private final BiConsumer<String, Throwable> failed;

    /**
     * @param listenerByPort the listener names learned from requests, shared with the listener watch
     * @param connecting what a client's connect waits for (pacing); runs whether or not TCP_INFO is available
     * @param congestion the congestion control set on accepted sockets; null to leave them alone
     * @param ownHttpPort the agent's own endpoint, never adopted
     * @param nativeAvailable whether TCP_INFO can be read; without it connections are not tracked
     * @param failed where a failure inside a hook goes (once per kind)
     */
    public AgentRuntime(
            ConnectionRegistry registry,
            BrokerConnectionIds brokerIds,
            Map<Integer, String> listenerByPort,
            Runnable connecting,
            String congestion,
            int ownHttpPort,
            boolean nativeAvailable,
            BiConsumer<String, Throwable> failed) {
        this.registry = registry;
        this.brokerIds = brokerIds;
        brokerIds.follow(registry);
        this.listenerByPort = listenerByPort;
        this.connecting = connecting;
        this.congestion = congestion;
        this.ownHttpPort = ownHttpPort;
        this.nativeAvailable = nativeAvailable;
        this.failed = failed;
    }

    @Override
    public void connecting() {
        connecting.run(); // pacing needs no native code
    }

    @Override
    public void registered(Object selector, String connectionId, SocketChannel channel, long connectStartNanos) {
        if (!nativeAvailable) {
            return;
        }
        int fd;
        try {
            fd = TcpSockets.fileDescriptor(channel);
        } catch (TcpSocketException closed) {
            return;
        }
        boolean client = connectStartNanos != 0;
        InetSocketAddress local = address(channel, true);
        InetSocketAddress remote = address(channel, false);
        ConnectionIdentity identity = ConnectionIdentity.of(client ? Role.CLIENT : Role.BROKER, local, remote);
        if (client) {
            // the flow the plugin gives the same connection: the client's (an MM2 client's by its
            // role), except that a bootstrap or group-coordinator connection carries none
            String clientId = clientIdBySelector.get(selector);
            identity = identity.withClientId(clientId)
                    .ownerKnownBy(clientId == null ? OwnerKnownBy.UNPLACED : OwnerKnownBy.HOOKS)
                    .withNodeId(ClientConnectionIds.brokerNode(connectionId))
                    .withFlow(ClientConnectionIds.flow(
                            BulkFlow.forClient(clientId, ClientKind.fromClientId(clientId)), connectionId));
        } else if (local != null) {
            identity = identity.withListener(listenerByPort.get(local.getPort()));
        }
        // The inode now, so that a later socket on this descriptor is never read as this one.
        TrackedConnection tracked = registry.track(
                        fd, TcpSockets.socketInode(fd).orElse(0), identity)
                .orElse(null);
        if (tracked == null) {
            return;
        }
        if (client) {
            tracked.handshakeStarted(connectStartNanos);
        } else {
            brokerIds.registered(connectionId, tracked);
            if (congestion != null) {
                setCongestion(channel);
            }
        }
    }

    /** Adopts the connections open before the hooks (an attach); see {@link OpenConnectionAdoption}. Returns how many. */
    public int adoptOpenConnections() throws IOException {
        return nativeAvailable ? OpenConnectionAdoption.adopt(registry, brokerIds, ownHttpPort) : 0;
    }

    private void setCongestion(SocketChannel channel) {
        try {
            TcpSockets.setCongestionControl(channel, congestion);
        } catch (TcpSocketException refused) {
            failed("congestion=" + congestion, refused);
        }
    }

    private static InetSocketAddress address(SocketChannel channel, boolean local) {
        try {
            return (InetSocketAddress) (local ? channel.getLocalAddress() : channel.getRemoteAddress());
        } catch (IOException | RuntimeException unknown) {
            return null;
        }
    }

    @Override
    public void connected(SocketChannel channel) {
        if (!nativeAvailable) {
            return;
        }
        int fd = TcpSockets.fileDescriptor(channel);
        registry.get(fd).ifPresent(connection -> {
            connection.handshakeCompleted(System.nanoTime());
            InetSocketAddress local = address(channel, true);
            if (connection.identity().local().isEmpty() && local != null) {
                connection.updateIdentity(identity -> identity.withLocal(local));
            }
        });
    }

    @Override
    public void closing(SocketChannel channel) {
        if (!nativeAvailable || !channel.isOpen()) {
            return;
        }
        int fd = TcpSockets.fileDescriptor(channel);
        TrackedConnection connection = registry.get(fd).orElse(null);
        if (connection != null) {
            registry.release(connection); // the broker's tables follow the registry
        } else {
            registry.release(fd); // one the full registry refused: no longer unwatched
        }
    }

    @Override
    public void networkClient(Object selector, String clientId) {
        if (clientId != null) {
            clientIdBySelector.put(selector, clientId);
        }
    }

    @Override
    public void request(String connectionId, Object context) {
        BrokerConnection broker = brokerIds.find(connectionId);
        if (broker == null) {
            return; // not ours
        }
        TrackedConnection connection = broker.tracked;
        connection.requested(); // read in the next round, were it idle before
        RequestFields fields = RequestFields.of(context);
        if (fields.forwarded(context, connection.identity().remote().orElse(null))) {
            return; // the original client's request, not this connection's
        }
        observeFlow(connection, context, fields);
        Object principal = fields.principalObject(context);
        Object clientInformation = fields.clientInformationObject(context);
        if (broker.readFrom(principal, clientInformation)
                && connection.identity().ownerKnownBy() == OwnerKnownBy.HOOKS) {
            return; // attributed, and the same principal and client as before: two equals calls, nothing built
        }
        // The first requests come before authentication (ApiVersions, SaslHandshake) and before the client
        // announced its software: principal and software follow every change (SASL, re-authentication, KIP-368).
        // An empty client.id names nobody: a client's SASL handshake may carry none (Connect's group member
        // authenticates with the channel's empty id and sends its own in the requests after).
        String sent = shared(fields.clientId(context));
        String clientId = sent == null || sent.isEmpty() ? null : sent;
        brokerIds.clientIdSeen(broker, clientId);
        String listener = fields.listener(context);
        String software = shared(RequestFields.software(clientInformation));
        String principalName = principal == null ? null : shared(principal.toString());
        connection.updateIdentity(identity -> {
            ConnectionIdentity known =
                    identity.clientId().filter(id -> !id.isEmpty()).isPresent()
                            ? identity
                            : identity.withClientId(clientId);
            if (known.clientId().isPresent()) {
                known = known.ownerKnownBy(OwnerKnownBy.HOOKS); // the client's own request said so
            }
            known = known.withPrincipal(principalName).withListener(listener);
            return software == null ? known : known.withClientSoftware(software);
        });
        broker.read(principal, clientInformation);
        InetSocketAddress local = connection.identity().local().orElse(null);
        if (listener != null && local != null && listenerByPort.size() < 64) {
            listenerByPort.putIfAbsent(local.getPort(), listener);
        }
    }

    /** The copy of a name that other connections already hold; null stays null. */
    private String shared(String name) {
        return name == null ? null : names.shared(name);
    }

    /**
     * The sizes a consumer's first Fetch asked for, kept on its connection for the rules
     * (fetch-size-below-bdp from the broker's side, for any client library). Only a connection the
     * request hook has just seen fetch (its flow to_client) is read, and only once: every other
     * request costs one map lookup and one volatile read here. A first Fetch that names no
     * partition (an incremental one, seen when the agent attached to a running broker) leaves the
     * connection unjudged.
     */
    @Override
    public void parsedRequest(Object requestAndSize, String connectionId) {
        BrokerConnection broker = brokerIds.find(connectionId);
        if (broker == null || requestAndSize == null) {
            return;
        }
        BulkFlow flow = broker.tracked.identity().knownFlow();
        if (flow == BulkFlow.TO_BROKER) {
            countProduce(broker, requestAndSize);
            return;
        }
        if (broker.fetchBodyRead() || flow != BulkFlow.TO_CLIENT) {
            return;
        }
        broker.fetchSizes = FetchRequestSizes.NONE_TOLD; // read once, whatever it tells
        try {
            Object fetch = FetchRequestSizes.fetchRequest(requestAndSize);
            if (fetch != null && broker.claimsFetcher()) {
                // only where the client.id claims a fetcher (its context came first, in the request hook); read
                // before the sizes: every Fetch carries it, the partitions' sizes only a full one
                brokerIds.fetchedAsReplica(broker, FetchRequestSizes.replicaId(fetch));
            }
            FetchRequestSizes.Sizes sizes = fetch == null ? null : FetchRequestSizes.of(fetch);
            if (sizes != null) {
                broker.fetchSizes = sizes;
            }
        } catch (ReflectiveOperationException | RuntimeException unreadable) {
            failed("reading a Fetch request's sizes", unreadable);
        }
    }

    /**
     * A producer's connection: each Produce request's size (one field read) and, now and then, the
     * partitions it names, for produce-pipeline-below-bdp. Other requests on it cost a class check.
     */
    private void countProduce(BrokerConnection broker, Object requestAndSize) {
        try {
            Object produce = ParsedRequests.produceRequest(requestAndSize);
            if (produce != null) {
                int partitions = broker.readsPartitionsOfNextProduce() ? ParsedRequests.partitions(produce) : -1;
                broker.produced(ParsedRequests.size(requestAndSize), partitions);
            }
        } catch (ReflectiveOperationException | RuntimeException unreadable) {
            failed("reading a Produce request's size", unreadable);
        }
    }

    /**
     * What the client asks for decides which buffers can limit the connection: fetches (and share
     * fetches) pull responses out of the broker, produces push requests into it. Read until the first Fetch or Produce; from then
     * on a request costs one volatile read here (a client that does both on one connection is rare and
     * keeps its first kind).
     */
    private static void observeFlow(TrackedConnection connection, Object context, RequestFields fields) {
        BulkFlow seen = connection.identity().knownFlow();
        if (seen == BulkFlow.TO_CLIENT || seen == BulkFlow.TO_BROKER) {
            return;
        }
        BulkFlow now = BulkFlow.ofRequest(fields.apiKey(context));
        if (now != seen) {
            connection.updateIdentity(identity -> identity.withFlow(now));
        }
    }

    @Override
    public boolean namesConnections() {
        return nativeAvailable;
    }

    @Override
    public Optional<String[]> clientConnection(int fd) {
        TrackedConnection connection = registry.get(fd).orElse(null);
        if (connection == null) {
            return Optional.empty();
        }
        ConnectionIdentity identity = connection.identity();
        if (identity.role() != Role.CLIENT || identity.clientId().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new String[] {
            identity.clientId().get(),
            identity.nodeId().orElse(""),
            identity.knownFlow().name(),
            Long.toString(connection.inode())
        });
    }

    @Override
    public void failed(String where, Throwable failure) {
        failed.accept(where, failure);
    }
}
