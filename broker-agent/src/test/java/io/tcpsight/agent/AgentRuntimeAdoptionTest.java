package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.agent.internal.naming.BrokerConnectionIds;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On an attach, every open connection predates the hooks. These are real loopback sockets opened
 * before the runtime exists: the census must adopt both ends, and the accepted end must take its
 * client.id from its next request, as a hooked connection does. The request is Kafka's own
 * RequestContext (kafka-clients, as the broker runs it); BrokerAgentIT proves the same path by
 * attaching to real Kafka 3.9.2 and 4.3.1 brokers.
 */
class AgentRuntimeAdoptionTest {

    /** Kafka 3.9's broker-side connection id ends "-index", 4.x's "-processor-index". */
    @ParameterizedTest
    @ValueSource(strings = {"-7", "-2-7"})
    void connectionsOpenedBeforeTheHooksAreAdoptedAndAttributedAtTheirFirstRequest(String idSuffix) throws Exception {
        try (OpenLoopbackPair pair = OpenLoopbackPair.open()) {
            AgentAssembly runtime = new AgentAssembly(AgentSettings.parse("port=0"), AgentLog.create());
            InetSocketAddress brokerSide = pair.brokerSide();
            InetSocketAddress clientSide = pair.clientSide();
            assertTrue(runtime.adoptOpenConnections() >= 2, "both ends adopted");
            TrackedConnection brokerEnd = find(runtime, brokerSide, clientSide);
            TrackedConnection clientEnd = find(runtime, clientSide, brokerSide);
            assertEquals(Role.BROKER, brokerEnd.identity().role(), "local port is one of this process's listeners");
            assertEquals(Role.CLIENT, clientEnd.identity().role());

            String connectionId = BrokerConnectionIds.addressKey(brokerSide, clientSide) + idSuffix;
            runtime.hooks()
                    .request(
                            connectionId,
                            request(connectionId, "late-consumer", KafkaPrincipal.ANONYMOUS, "PLAINTEXT"));

            assertEquals("late-consumer", brokerEnd.identity().clientId().orElseThrow());
            assertEquals("PLAINTEXT", brokerEnd.identity().listener().orElseThrow());
            assertEquals("User:ANONYMOUS", brokerEnd.identity().principal().orElseThrow());
            runtime.hooks()
                    .request(
                            connectionId,
                            request(connectionId, "someone-else", new KafkaPrincipal("User", "other"), "OTHER"));
            assertEquals("late-consumer", brokerEnd.identity().clientId().orElseThrow(), "attributed once");
            assertEquals(0, runtime.adoptOpenConnections(), "nothing adopted twice");
        }
    }

    /** Kafka closes a connection the agent adopted and named: a request that still carries its id reaches nothing. */
    @Test
    void aConnectionKafkaClosedIsNoLongerReachedByItsId() throws Exception {
        try (OpenLoopbackPair pair = OpenLoopbackPair.open()) {
            AgentAssembly runtime = new AgentAssembly(AgentSettings.parse("port=0"), AgentLog.create());
            RequestContext context = namedByARequest(runtime, pair, "closing-consumer");

            runtime.hooks().closing(pair.brokerChannel());
            assertEquals(Optional.empty(), runtime.reachedBy(context), "closed as Kafka closed it");
        }
    }

    /** The sampler lets a connection go whose descriptor went away unseen: its id reaches nothing from then on. */
    @Test
    void aConnectionTheSamplerLetGoIsNoLongerReachedByItsId() throws Exception {
        try (OpenLoopbackPair pair = OpenLoopbackPair.open()) {
            AgentAssembly runtime = new AgentAssembly(AgentSettings.parse("port=0"), AgentLog.create());
            RequestContext context = namedByARequest(runtime, pair, "vanishing-consumer");

            runtime.releaseAsTheSamplerDoes(
                    find(runtime, pair.brokerSide(), pair.clientSide()).fd());
            assertEquals(Optional.empty(), runtime.reachedBy(context), "let go by the sampler");
        }
    }

    /** The pair adopted, its broker end's id told by a request from {@code clientId}: that request's context. */
    private static RequestContext namedByARequest(AgentAssembly runtime, OpenLoopbackPair pair, String clientId)
            throws Exception {
        runtime.adoptOpenConnections();
        String connectionId = BrokerConnectionIds.addressKey(pair.brokerSide(), pair.clientSide()) + "-2-7";
        RequestContext context = request(connectionId, clientId, KafkaPrincipal.ANONYMOUS, "PLAINTEXT");
        runtime.hooks().request(connectionId, context);
        assertEquals(
                Optional.of(find(runtime, pair.brokerSide(), pair.clientSide())),
                runtime.reachedBy(context),
                "its first request told its id");
        return context;
    }

    private static TrackedConnection find(AgentAssembly runtime, InetSocketAddress local, InetSocketAddress remote) {
        return runtime.tracked().stream()
                .filter(connection -> connection.identity().local().equals(Optional.of(local))
                        && connection.identity().remote().equals(Optional.of(remote)))
                .findFirst()
                .orElseThrow(() ->
                        new AssertionError("not adopted: " + local + " -> " + remote + " in " + runtime.tracked()));
    }

    /** Kafka's own RequestContext, as the broker builds one for a request on this connection. */
    private static RequestContext request(
            String connectionId, String clientId, KafkaPrincipal principal, String listener) {
        return ProcessorRequests.context(
                ApiKeys.METADATA,
                connectionId,
                clientId,
                principal,
                ClientInformation.EMPTY,
                listener,
                SecurityProtocol.PLAINTEXT);
    }
}
