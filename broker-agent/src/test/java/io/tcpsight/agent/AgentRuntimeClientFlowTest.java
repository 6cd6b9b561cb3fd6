package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.tcp.TcpSockets;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A client connection's identity from the hooks' calls, over real loopback sockets: the flow the
 * client and the connection id imply (an MM2 client by its role; a bootstrap or coordinator
 * connection carries no bulk data) is set when the client connects and stays once the connect
 * completes, as the Connect plugin has it.
 */
class AgentRuntimeClientFlowTest {

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "far->near|mm2-far-0|replication-consumer, -1, bootstrap, NONE",
        "far->near|mm2-far-0|replication-consumer, 1, 1, TO_CLIENT",
        "far->near|mm2-far-0|offset-syncs-source-consumer, 1, 1, NONE",
        "connector-consumer-sink-0, 2147483646, 1, NONE",
        "connector-consumer-sink-0, 1, 1, TO_CLIENT",
        "connector-producer-source-0, 1, 1, TO_BROKER",
        "an-id-that-tells-nothing, 1, 1, UNKNOWN",
    })
    void theFlowAConnectionIdImpliesOutlivesTheConnect(String clientId, String connectionId, String node, BulkFlow flow)
            throws Exception {
        assumeTrue( // in CI a failure (NoSkipsInCi)
                TcpSockets.availability().isAvailable(),
                TcpSockets.availability().reason());
        AgentAssembly runtime = new AgentAssembly(AgentSettings.parse("port=0"), AgentLog.create());
        Object selector = new Object();
        try (ServerSocketChannel server = ServerSocketChannel.open();
                SocketChannel client = SocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            runtime.hooks().networkClient(selector, clientId);
            client.configureBlocking(false);
            client.connect(server.getLocalAddress());
            runtime.hooks().registered(selector, connectionId, client, System.nanoTime());
            try (SocketChannel accepted = server.accept()) {
                client.finishConnect();
                runtime.hooks().connected(client);
                InetSocketAddress local = (InetSocketAddress) client.getLocalAddress();
                ConnectionIdentity identity = runtime.tracked().stream()
                        .map(tracked -> tracked.identity())
                        .filter(candidate -> candidate.local().equals(Optional.of(local)))
                        .findFirst()
                        .orElseThrow();
                assertEquals(clientId, identity.clientId().orElseThrow());
                assertEquals(node, identity.nodeId().orElseThrow());
                assertEquals(flow, identity.knownFlow(), "what /findings and /connections show");
                assertEquals(OwnerKnownBy.HOOKS, identity.ownerKnownBy());
                // what the Connect plugin and the reporter in the same JVM read through Hooks.clientConnection
                int fd = TcpSockets.fileDescriptor(client);
                String[] owner = runtime.hooks().clientConnection(fd).orElseThrow();
                assertEquals(clientId, owner[0]);
                assertEquals(node, owner[1]);
                assertEquals(flow.name(), owner[2]);
                assertEquals(Long.toString(TcpSockets.socketInode(fd).orElseThrow()), owner[3]);
                assertEquals(
                        Optional.empty(),
                        runtime.hooks().clientConnection(TcpSockets.fileDescriptor(accepted)),
                        "not tracked");
            }
        }
    }
}
