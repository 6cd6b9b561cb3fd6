package io.tcpsight.internal.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.sampling.ByteCountAttribution.ClientConnection;
import io.tcpsight.internal.sampling.ByteCountAttribution.SocketCounts;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ByteCountAttributionTest {
    private final ByteCountAttribution attribution = new ByteCountAttribution();

    @Test
    void idleConnectionsAreNamedOnlyAfterSeveralExactRounds() {
        List<SocketCounts> sockets =
                List.of(new SocketCounts(10, "1", 5_000, 700), new SocketCounts(11, "1", 9_100, 1_200));
        List<ClientConnection> clients = List.of(
                client("connector-consumer-a-0", "1", 9_100, 1_200), client("connector-consumer-b-0", "1", 5_000, 700));
        for (int round = 1; round < ByteCountAttribution.ROUNDS_TO_NAME; round++) {
            assertTrue(round(sockets, clients).isEmpty(), "named after " + round + " round(s)");
        }
        Map<Long, String> owners = round(sockets, clients);
        assertEquals("connector-consumer-b-0", owners.get(10L));
        assertEquals("connector-consumer-a-0", owners.get(11L));
    }

    @Test
    void countsThatAreOnlyCloseNeverNameASocket() {
        // TLS: the kernel counts records and handshakes; the client counts plaintext. Close, never equal.
        List<SocketCounts> tls = List.of(new SocketCounts(10, "1", 5_412, 1_033));
        List<ClientConnection> clients = List.of(client("consumer-x", "1", 5_000, 700));
        for (int round = 0; round < 10; round++) {
            assertTrue(round(tls, clients).isEmpty());
        }
    }

    @Test
    void busyRoundsBetweenExactOnesKeepTheCountButDoNotAddToIt() {
        SocketCounts idle = new SocketCounts(10, "1", 10_000, 400);
        ClientConnection atRest = client("consumer-x", "1", 10_000, 400);
        // 300 KB arrived and is not read yet; 50 bytes written and not acknowledged: consistent, not exact
        SocketCounts busy = new SocketCounts(10, "1", 10_300_000, 40_000);
        ClientConnection reading = client("consumer-x", "1", 10_000_000, 40_050);
        assertTrue(round(List.of(idle), List.of(atRest)).isEmpty());
        assertTrue(round(List.of(busy), List.of(reading)).isEmpty());
        assertTrue(round(List.of(idle), List.of(atRest)).isEmpty());
        assertTrue(round(List.of(busy), List.of(reading)).isEmpty());
        assertEquals(Map.of(10L, "consumer-x"), round(List.of(idle), List.of(atRest)));
        assertEquals(Map.of(10L, "consumer-x"), round(List.of(busy), List.of(reading)), "kept while consistent");
    }

    @Test
    void aNameIsTakenBackAtTheFirstContradiction() {
        SocketCounts socket = new SocketCounts(10, "1", 10_000, 400);
        ClientConnection owner = client("consumer-x", "1", 10_000, 400);
        named(socket, owner);
        // the client read more than this socket ever received: it is not this socket's
        assertTrue(round(List.of(socket), List.of(client("consumer-x", "1", 10_001, 400)))
                .isEmpty());

        named(socket, owner);
        // another socket now matches the same client exactly: which one is its, is no longer certain
        SocketCounts twin = new SocketCounts(11, "1", 10_000, 400);
        assertTrue(round(List.of(socket, twin), List.of(owner)).isEmpty());

        named(socket, owner);
        // the client is gone
        assertTrue(round(List.of(socket), List.of()).isEmpty());
    }

    @Test
    void aSocketWhoseCountsEqualABusyClientsIsNotNamedOnceTheClientsOwnSocketRests() {
        // another client's socket (no metrics here) has the counts consumer-x had; consumer-x's socket is busy
        SocketCounts stranger = new SocketCounts(20, "1", 10_000, 400);
        SocketCounts ownBusy = new SocketCounts(21, "1", 10_400, 400);
        SocketCounts ownAtRest = new SocketCounts(21, "1", 10_000, 400);
        ClientConnection client = client("consumer-x", "1", 10_000, 400);
        assertTrue(round(List.of(stranger, ownBusy), List.of(client)).isEmpty());
        assertTrue(round(List.of(stranger, ownAtRest), List.of(client)).isEmpty(), "a tie");
        assertTrue(round(List.of(stranger, ownBusy), List.of(client)).isEmpty());
        assertTrue(round(List.of(stranger, ownBusy), List.of(client)).isEmpty(), "counting started again");
    }

    @Test
    void idleSocketsWhoseCountsTieAreNamedByNobody() {
        List<SocketCounts> sockets =
                List.of(new SocketCounts(1, "1", 1_000, 100), new SocketCounts(2, "1", 1_000, 100));
        List<ClientConnection> twoClients =
                List.of(client("consumer-a", "1", 1_000, 100), client("producer-b", "1", 1_000, 100));
        List<ClientConnection> oneClient = List.of(client("consumer-a", "1", 1_000, 100));
        for (int round = 0; round < 5; round++) {
            assertTrue(round(sockets, twoClients).isEmpty());
            assertTrue(round(sockets, oneClient).isEmpty(), "two sockets, one owner: one is someone else's");
        }
    }

    @Test
    void aStreamingConnectionIsExactOnlyWhenNothingWasReadOrWrittenBetweenTheReads() {
        SocketCounts socket = new SocketCounts(10, "1", 50_000_000, 4_200);
        ClientConnection before = client("connector-consumer-s-0", "1", 49_990_000, 4_100);
        ClientConnection afterMoved = client("connector-consumer-s-0", "1", 50_040_000, 4_200);
        ClientConnection bracketed = ByteCountAttribution.bracket(List.of(before), List.of(afterMoved))
                .get(0);
        assertEquals("connector-consumer-s-0/node-1 read=49990000..50040000 written=4100..4200", bracketed.toString());
        assertTrue(ByteCountAttribution.consistent(socket, bracketed));
        assertFalse(ByteCountAttribution.exact(socket, bracketed));

        ClientConnection still = client("connector-consumer-s-0", "1", 50_000_000, 4_200);
        ClientConnection bracketedStill =
                ByteCountAttribution.bracket(List.of(still), List.of(still)).get(0);
        assertTrue(ByteCountAttribution.exact(socket, bracketedStill));
        ClientConnection fresh = client("connector-consumer-s-1", "1", 0, 0);
        assertEquals(
                "connector-consumer-s-1/node-1 read=0..0 written=0..0",
                ByteCountAttribution.bracket(List.of(), List.of(fresh)).get(0).toString(),
                "a connection new since the first read is taken as the second shows it");
    }

    @Test
    void aStreamingSocketIsNamedFromItsQueuesWhileBusy() {
        // at the kernel sample the consumer had read 50,000,000 - 120,000 bytes and written 4,100 + 50; its reads
        // before and after the sample bracket both, 20 ms of a 100 Mbit/s stream apart
        ClientConnection own = ByteCountAttribution.bracket(
                        List.of(client("connector-consumer-s-0", "1", 49_800_000, 4_150)),
                        List.of(client("connector-consumer-s-0", "1", 50_050_000, 4_150)))
                .get(0);
        ClientConnection other = ByteCountAttribution.bracket(
                        List.of(client("connector-consumer-t-0", "1", 61_000_000, 5_000)),
                        List.of(client("connector-consumer-t-0", "1", 61_250_000, 5_000)))
                .get(0);
        SocketCounts busy = new SocketCounts(10, "1", 50_000_000, 4_100, 120_000, 50);
        assertTrue(ByteCountAttribution.exact(busy, own));
        assertFalse(ByteCountAttribution.exact(busy, other));
        Map<Long, String> owners = Map.of();
        for (int round = 0; round < ByteCountAttribution.ROUNDS_TO_NAME; round++) {
            owners = round(List.of(busy), List.of(own, other));
        }
        assertEquals(Map.of(10L, "connector-consumer-s-0"), owners);
        SocketCounts readTooFar = new SocketCounts(10, "1", 50_100_000, 4_100, 0, 50);
        assertFalse(ByteCountAttribution.exact(readTooFar, own), "the application read more than the client counted");
    }

    /**
     * Connect's offsets producer and consumer share one client.id: bracketing one's earlier read with the
     * other's later one made a range that matched every socket, and nothing was ever named.
     */
    @Test
    void clientsOfTwoTypesWithOneClientIdStayApart() {
        List<ClientConnection> before = List.of(
                new ClientConnection("producer-node-metrics", "worker-offsets", "1", 900, 3_000, BulkFlow.TO_BROKER),
                new ClientConnection("consumer-node-metrics", "worker-offsets", "1", 40_000, 800, BulkFlow.TO_CLIENT));
        List<ClientConnection> bracketed = ByteCountAttribution.bracket(before, before);
        assertEquals(
                List.of(
                        "worker-offsets/node-1 read=900..900 written=3000..3000",
                        "worker-offsets/node-1 read=40000..40000 written=800..800"),
                bracketed.stream().map(Object::toString).collect(Collectors.toList()));
        SocketCounts someoneElses = new SocketCounts(30, "1", 5_000, 1_000, 0, 0);
        assertTrue(bracketed.stream().noneMatch(client -> ByteCountAttribution.exact(someoneElses, client)));
    }

    @Test
    void theSynMayCountAsOneAcknowledgedByte() {
        assertTrue(ByteCountAttribution.exact(new SocketCounts(1, null, 100, 11), client("c", "1", 100, 10)));
        assertFalse(ByteCountAttribution.exact(new SocketCounts(1, null, 100, 12), client("c", "1", 100, 10)));
    }

    @Test
    void theBrokerOfTheSocketMustBeTheClientsNodeItsCoordinatorOrABootstrapConnection() {
        SocketCounts toNode1 = new SocketCounts(1, "1", 100, 10);
        assertTrue(ByteCountAttribution.exact(toNode1, client("c", "1", 100, 10)));
        assertTrue(ByteCountAttribution.exact(toNode1, client("c", Integer.toString(Integer.MAX_VALUE - 1), 100, 10)));
        assertTrue(ByteCountAttribution.exact(toNode1, client("c", "-1", 100, 10)));
        assertFalse(ByteCountAttribution.exact(toNode1, client("c", "2", 100, 10)));
        assertFalse(ByteCountAttribution.consistent(toNode1, client("c", "2", 100, 10)));
    }

    @Test
    void tiedTasksOfOneConnectorNameTheConnectorAndTiesAcrossConnectorsNameNobody() {
        List<ClientConnection> sameConnector =
                List.of(client("connector-consumer-s-1", "1", 500, 80), client("connector-consumer-s-2", "1", 500, 80));
        List<SocketCounts> oneSocket = List.of(new SocketCounts(7, "1", 500, 80));
        Map<Long, String> owners = Map.of();
        for (int round = 0; round < ByteCountAttribution.ROUNDS_TO_NAME; round++) {
            owners = round(oneSocket, sameConnector);
        }
        assertEquals("connector-consumer-s-*", owners.get(7L));

        ByteCountAttribution other = new ByteCountAttribution();
        List<ClientConnection> twoConnectors =
                List.of(client("connector-consumer-s-1", "1", 500, 80), client("connector-consumer-t-1", "1", 500, 80));
        for (int round = 0; round < 5; round++) {
            assertTrue(other.round(oneSocket, twoConnectors).isEmpty());
        }
        List<SocketCounts> threeSockets = List.of(
                new SocketCounts(7, "1", 500, 80),
                new SocketCounts(8, "1", 500, 80),
                new SocketCounts(9, "1", 500, 80));
        for (int round = 0; round < 5; round++) {
            assertTrue(other.round(threeSockets, sameConnector).isEmpty(), "three sockets for two task connections");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"TO_CLIENT", "TO_BROKER", "NONE"})
    void theNamedConnectionKeepsItsFlowAlsoWhenATieNamesOnlyTheConnector(BulkFlow flow) {
        List<ClientConnection> tied = List.of(
                new ClientConnection("connector-consumer-s-0", "1", 500, 80, flow),
                new ClientConnection("connector-consumer-s-1", "1", 500, 80, flow));
        Map<Long, ClientConnection> owners = Map.of();
        for (int round = 0; round < ByteCountAttribution.ROUNDS_TO_NAME; round++) {
            owners = attribution.round(List.of(new SocketCounts(7, "1", 500, 80)), tied);
        }
        assertEquals("connector-consumer-s-*", owners.get(7L).clientId);
        assertEquals(flow, owners.get(7L).flow);
    }

    private void named(SocketCounts socket, ClientConnection owner) {
        Map<Long, String> owners = Map.of();
        for (int round = 0; round < ByteCountAttribution.ROUNDS_TO_NAME; round++) {
            owners = round(List.of(socket), List.of(owner));
        }
        assertEquals(owner.clientId, owners.get(socket.socket));
    }

    /** One round: the owning client.id by socket. */
    private Map<Long, String> round(List<SocketCounts> sockets, List<ClientConnection> clients) {
        return attribution.round(sockets, clients).entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, owner -> owner.getValue().clientId));
    }

    /** A client connection whose flow does not matter to the test. */
    private static ClientConnection client(String clientId, String nodeId, long bytesRead, long bytesWritten) {
        return new ClientConnection(clientId, nodeId, bytesRead, bytesWritten, BulkFlow.UNKNOWN);
    }
}
