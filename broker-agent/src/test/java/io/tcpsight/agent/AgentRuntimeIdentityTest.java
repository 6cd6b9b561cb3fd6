package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.agent.internal.naming.BrokerConnectionIds;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.RequestAndSize;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;

/**
 * A SASL connection's life as the broker's requests show it, with Kafka's own RequestContext: the
 * first requests (ApiVersions, SaslHandshake) come as ANONYMOUS and before the client announced
 * its software; then the authenticated principal, with a new KafkaPrincipal object for every
 * request as Kafka's SASL authenticator builds them; then a re-authentication (KIP-368) as
 * another user. BrokerAgentIT proves it on a real SASL/PLAIN broker.
 */
class AgentRuntimeIdentityTest {

    @Test
    void principalAndClientSoftwareFollowAuthenticationAndTheClientsAnnouncement() throws Exception {
        try (OpenLoopbackPair pair = OpenLoopbackPair.open()) {
            AgentAssembly runtime = new AgentAssembly(AgentSettings.parse("port=0"), AgentLog.create());
            runtime.adoptOpenConnections();
            InetSocketAddress brokerSide = pair.brokerSide();
            String connectionId = BrokerConnectionIds.addressKey(brokerSide, pair.clientSide()) + "-2-7";

            runtime.hooks()
                    .request(connectionId, request(connectionId, KafkaPrincipal.ANONYMOUS, ClientInformation.EMPTY));
            TrackedConnection connection = trackedAt(runtime, brokerSide);
            assertEquals("User:ANONYMOUS", connection.identity().principal().orElseThrow(), "before authentication");
            assertEquals(Optional.empty(), connection.identity().clientSoftware(), "not announced yet");

            ClientInformation java = new ClientInformation("apache-kafka-java", "4.3.1");
            for (int i = 0; i < 3; i++) {
                runtime.hooks().request(connectionId, request(connectionId, new KafkaPrincipal("User", "alice"), java));
            }
            ConnectionIdentity authenticated = connection.identity();
            assertEquals("User:alice", authenticated.principal().orElseThrow());
            assertEquals(
                    "apache-kafka-java/4.3.1", authenticated.clientSoftware().orElseThrow());
            assertEquals("orders-consumer", authenticated.clientId().orElseThrow());

            runtime.hooks().request(connectionId, request(connectionId, new KafkaPrincipal("User", "alice"), java));
            assertTrue(authenticated == connection.identity(), "an unchanged request rebuilds nothing");

            runtime.hooks().request(connectionId, request(connectionId, new KafkaPrincipal("User", "bob"), java));
            assertEquals("User:bob", connection.identity().principal().orElseThrow(), "after re-authentication");
            assertEquals("orders-consumer", connection.identity().clientId().orElseThrow(), "client.id stays");
        }
    }

    /**
     * A follower's two fetcher threads, each on a connection of its own, as the broker's requests name
     * them: the first fetcher's settings carry that its follower runs two (the fetch rule then never
     * names num.replica.fetchers=2).
     */
    @Test
    void aFollowersSecondFetcherOnItsOwnConnectionReachesTheFirstsSettings() throws Exception {
        try (OpenLoopbackPair first = OpenLoopbackPair.open();
                OpenLoopbackPair second = OpenLoopbackPair.open();
                OpenLoopbackPair namedLikeOne = OpenLoopbackPair.open()) {
            AgentAssembly runtime = new AgentAssembly(AgentSettings.parse("port=0"), AgentLog.create());
            runtime.adoptOpenConnections();
            fetches(runtime, first, "-2-10", "broker-2-fetcher-0", 2);
            TrackedConnection fetcher = brokerSideOf(runtime, first);
            assertEquals(
                    1,
                    runtime.requestedSettings(fetcher).followerFetchersAtLeast().getAsInt());
            fetches(runtime, namedLikeOne, "-2-12", "broker-2-fetcher-2", -1);
            assertEquals(
                    1,
                    runtime.requestedSettings(fetcher).followerFetchersAtLeast().getAsInt(),
                    "a consumer's Fetch under a fetcher's client.id");
            fetches(runtime, second, "-2-11", "broker-2-fetcher-1", 2);
            assertEquals(
                    2,
                    runtime.requestedSettings(fetcher).followerFetchersAtLeast().getAsInt());
        }
    }

    /**
     * Only a connection's first Fetch body is read: one that names no partition (an incremental Fetch,
     * KIP-227) leaves its sizes unknown, and a full one after it is not read; a connection whose first
     * Fetch is full keeps what it asked for.
     */
    @Test
    void onlyTheFirstFetchBodyIsReadAndOneThatNamesNoPartitionLeavesTheSizesUnknown() throws Exception {
        try (OpenLoopbackPair incrementalFirst = OpenLoopbackPair.open();
                OpenLoopbackPair fullFirst = OpenLoopbackPair.open()) {
            AgentAssembly runtime = new AgentAssembly(AgentSettings.parse("port=0"), AgentLog.create());
            runtime.adoptOpenConnections();
            fetches(runtime, incrementalFirst, "-2-20", "orders-consumer", -1, Map.of());
            fetches(runtime, incrementalFirst, "-2-20", "orders-consumer", -1, ONE_PARTITION);
            fetches(runtime, fullFirst, "-2-21", "orders-consumer", -1, ONE_PARTITION);
            fetches(runtime, fullFirst, "-2-21", "orders-consumer", -1, Map.of());
            assertFalse(
                    runtime.requestedSettings(brokerSideOf(runtime, incrementalFirst))
                            .maxPartitionFetchBytes()
                            .isPresent(),
                    "its first Fetch named no partition, and no later one is read");
            assertEquals(
                    1_048_576,
                    runtime.requestedSettings(brokerSideOf(runtime, fullFirst))
                            .maxPartitionFetchBytes()
                            .getAsLong(),
                    "its first Fetch's sizes, kept");
        }
    }

    private static final Map<TopicPartition, FetchRequest.PartitionData> ONE_PARTITION = Map.of(
            new TopicPartition("orders", 0),
            new FetchRequest.PartitionData(Uuid.randomUuid(), 0L, 0L, 1_048_576, Optional.empty()));

    private static TrackedConnection brokerSideOf(AgentAssembly runtime, OpenLoopbackPair pair) throws IOException {
        return trackedAt(runtime, pair.brokerSide());
    }

    /** The connection the runtime tracks whose local end is {@code local}. */
    private static TrackedConnection trackedAt(AgentAssembly runtime, InetSocketAddress local) {
        return runtime.tracked().stream()
                .filter(tracked -> tracked.identity().local().equals(Optional.of(local)))
                .findFirst()
                .orElseThrow();
    }

    private static void fetches(
            AgentAssembly runtime, OpenLoopbackPair pair, String idTail, String clientId, int replicaId)
            throws IOException {
        fetches(runtime, pair, idTail, clientId, replicaId, ONE_PARTITION);
    }

    /**
     * A Fetch on the pair's broker side, through the hooks as Kafka's Processor calls them: its context,
     * then the body it parsed (Kafka's own FetchRequest, from a follower when {@code replicaId} is one).
     */
    private static void fetches(
            AgentAssembly runtime,
            OpenLoopbackPair pair,
            String idTail,
            String clientId,
            int replicaId,
            Map<TopicPartition, FetchRequest.PartitionData> partitions)
            throws IOException {
        String connectionId = BrokerConnectionIds.addressKey(pair.brokerSide(), pair.clientSide()) + idTail;
        runtime.hooks()
                .request(
                        connectionId,
                        ProcessorRequests.context(
                                ApiKeys.FETCH,
                                connectionId,
                                clientId,
                                KafkaPrincipal.ANONYMOUS,
                                ClientInformation.EMPTY,
                                "PLAINTEXT",
                                SecurityProtocol.PLAINTEXT));
        FetchRequest.Builder builder = replicaId >= 0
                ? FetchRequest.Builder.forReplica(ApiKeys.FETCH.latestVersion(), replicaId, 1L, 500, 1, partitions)
                : FetchRequest.Builder.forConsumer(ApiKeys.FETCH.latestVersion(), 500, 1, partitions);
        runtime.hooks().parsedRequest(new RequestAndSize(builder.build(), 120), connectionId);
    }

    /**
     * Connect's group member authenticates (SASL) with the channel's empty client.id and sends its own
     * in the requests after: the empty one names nobody, and the connection is judged only once named.
     */
    @Test
    void anEmptyClientIdNamesNobodyAndTheNextRequestsIdNamesTheConnection() throws Exception {
        try (OpenLoopbackPair pair = OpenLoopbackPair.open()) {
            AgentAssembly runtime = new AgentAssembly(AgentSettings.parse("port=0"), AgentLog.create());
            runtime.adoptOpenConnections();
            InetSocketAddress brokerSide = pair.brokerSide();
            String connectionId = BrokerConnectionIds.addressKey(brokerSide, pair.clientSide()) + "-2-8";
            runtime.hooks()
                    .request(
                            connectionId, request(connectionId, KafkaPrincipal.ANONYMOUS, ClientInformation.EMPTY, ""));
            TrackedConnection connection = trackedAt(runtime, brokerSide);
            assertEquals(Optional.empty(), connection.identity().clientId());
            assertEquals(OwnerKnownBy.UNPLACED, connection.identity().ownerKnownBy());
            KafkaPrincipal alice = new KafkaPrincipal("User", "alice");
            runtime.hooks()
                    .request(connectionId, request(connectionId, alice, ClientInformation.EMPTY, "connect-worker-1"));
            assertEquals("connect-worker-1", connection.identity().clientId().orElseThrow());
            assertEquals(OwnerKnownBy.HOOKS, connection.identity().ownerKnownBy());
        }
    }

    /**
     * A forwarded admin request (KIP-590), as the controller's EnvelopeUtils rebuilds it on a request
     * handler thread: the broker-to-controller connection's id with the original client's client.id
     * and principal, and no port. It must leave that connection's names alone.
     */
    @Test
    void aForwardedRequestDoesNotRelabelTheBrokerToControllerConnection() throws Exception {
        try (OpenLoopbackPair pair = OpenLoopbackPair.open()) {
            AgentAssembly runtime = new AgentAssembly(AgentSettings.parse("port=0"), AgentLog.create());
            runtime.adoptOpenConnections();
            InetSocketAddress controllerSide = pair.brokerSide();
            String connectionId = BrokerConnectionIds.addressKey(controllerSide, pair.clientSide()) + "-2-9";
            ClientInformation java = new ClientInformation("apache-kafka-java", "4.3.1");
            runtime.hooks()
                    .request(
                            connectionId,
                            request(
                                    connectionId,
                                    KafkaPrincipal.ANONYMOUS,
                                    java,
                                    "broker-1-to-controller-forwarding-channel"));
            TrackedConnection connection = trackedAt(runtime, controllerSide);
            runtime.hooks()
                    .request(
                            connectionId,
                            new RequestContext(
                                    new RequestHeader(
                                            ApiKeys.CREATE_TOPICS,
                                            ApiKeys.CREATE_TOPICS.latestVersion(),
                                            "alice-admin",
                                            5),
                                    connectionId,
                                    InetAddress.getLoopbackAddress(),
                                    new KafkaPrincipal("User", "alice"),
                                    new ListenerName("CONTROLLER"),
                                    SecurityProtocol.PLAINTEXT,
                                    ClientInformation.EMPTY,
                                    false));
            assertEquals("User:ANONYMOUS", connection.identity().principal().orElseThrow());
            assertEquals(
                    "broker-1-to-controller-forwarding-channel",
                    connection.identity().clientId().orElseThrow());
        }
    }

    private static RequestContext request(String connectionId, KafkaPrincipal principal, ClientInformation client) {
        return request(connectionId, principal, client, "orders-consumer");
    }

    private static RequestContext request(
            String connectionId, KafkaPrincipal principal, ClientInformation client, String clientId) {
        return ProcessorRequests.context(
                ApiKeys.METADATA,
                connectionId,
                clientId,
                principal,
                client,
                "SASL_PLAINTEXT",
                SecurityProtocol.SASL_PLAINTEXT);
    }
}
