package io.tcpsight.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.model.BulkFlow;
import io.tcpsight.sampling.ByteCountAttribution.ClientConnection;
import io.tcpsight.sampling.ByteCountAttribution.SocketCounts;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ByteCountAttributionTest {
    @Test
    void idleConnectionsMatchTheirClientsExactly() {
        List<SocketCounts> sockets =
                List.of(new SocketCounts(10, "1", 5_000, 700), new SocketCounts(11, "1", 9_100, 1_200));
        List<ClientConnection> clients = List.of(
                client("connector-consumer-a-0", "1", 9_100, 1_200), client("connector-consumer-b-0", "1", 5_000, 700));
        Map<Integer, String> owners = attribute(sockets, clients);
        assertEquals("connector-consumer-b-0", owners.get(10));
        assertEquals("connector-consumer-a-0", owners.get(11));
    }

    @Test
    void busyConnectionsMatchWithBytesStillQueuedInTheKernel() {
        // the kernel received 300 KB Kafka has not read yet; Kafka wrote 50 bytes not yet acknowledged
        List<SocketCounts> sockets = List.of(new SocketCounts(10, "1", 10_300_000, 40_000));
        List<ClientConnection> clients =
                List.of(client("consumer-x", "1", 10_000_000, 40_050), client("consumer-y", "1", 10_400_000, 40_050));
        assertEquals("consumer-x", attribute(sockets, clients).get(10));
    }

    @Test
    void aClientCannotHaveReadMoreThanTheKernelReceived() {
        assertEquals(-1, ByteCountAttribution.distance(new SocketCounts(1, null, 100, 10), client("c", "1", 101, 10)));
    }

    @Test
    void aStreamingConnectionIsNamedFromTheReadsThatBracketTheKernelSample() {
        // 80 Mbit/s into a consumer that reads as it arrives: by the JMX read after the kernel sample Kafka has read
        // 40 KB more than the kernel had received at the sample, and its next fetch request is written and acked
        SocketCounts streaming = new SocketCounts(10, "1", 50_000_000, 4_200);
        List<ClientConnection> before = List.of(
                client("connector-consumer-s-0", "1", 49_990_000, 4_100),
                client("connector-consumer-s-1", "1", 61_000_000, 5_000));
        List<ClientConnection> after = List.of(
                client("connector-consumer-s-0", "1", 50_040_000, 4_200),
                client("connector-consumer-s-1", "1", 61_050_000, 5_000),
                client("connector-consumer-s-2", "1", 0, 0));
        assertTrue(attribute(List.of(streaming), after).isEmpty(), "after alone: read more than received");

        List<ClientConnection> bracketed = ByteCountAttribution.bracket(before, after);
        assertEquals(Map.of(10, "connector-consumer-s-0"), attribute(List.of(streaming), bracketed));
        assertEquals(
                List.of(
                        "connector-consumer-s-0/node-1 read=49990000 written=4200",
                        "connector-consumer-s-1/node-1 read=61000000 written=5000",
                        "connector-consumer-s-2/node-1 read=0 written=0"),
                bracketed.stream().map(Object::toString).collect(Collectors.toList()),
                "read as of before, written as of after; a connection new since before as after shows it");
    }

    @Test
    void theBrokerOfTheSocketMustBeTheClientsNodeItsCoordinatorOrABootstrapConnection() {
        assertTrue(ByteCountAttribution.sameBroker("1", "1"));
        assertTrue(ByteCountAttribution.sameBroker("1", Integer.toString(Integer.MAX_VALUE - 1)));
        assertTrue(ByteCountAttribution.sameBroker("1", "-1"));
        assertFalse(ByteCountAttribution.sameBroker("1", "2"));
        assertEquals(-1, ByteCountAttribution.distance(new SocketCounts(1, "2", 100, 10), client("c", "1", 100, 10)));
    }

    @Test
    void tiedTasksOfOneConnectorNameTheConnectorAndTiesAcrossConnectorsNameNobody() {
        List<ClientConnection> sameConnector =
                List.of(client("connector-consumer-s-1", "1", 500, 80), client("connector-consumer-s-2", "1", 500, 80));
        Map<Integer, String> owners = attribute(List.of(new SocketCounts(7, "1", 500, 80)), sameConnector);
        assertEquals("connector-consumer-s-*", owners.get(7));

        List<ClientConnection> twoConnectors =
                List.of(client("connector-consumer-s-1", "1", 500, 80), client("connector-consumer-t-1", "1", 500, 80));
        assertTrue(attribute(List.of(new SocketCounts(7, "1", 500, 80)), twoConnectors)
                .isEmpty());
    }

    @Test
    void eachClientConnectionOwnsOneSocketAtMost() {
        List<SocketCounts> sockets =
                List.of(new SocketCounts(1, "1", 1_000, 100), new SocketCounts(2, "1", 1_010, 100));
        Map<Integer, String> owners = attribute(sockets, List.of(client("only", "1", 1_000, 100)));
        assertEquals(1, owners.size());
        assertEquals("only", owners.get(1));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"TO_CLIENT", "TO_BROKER", "NONE"})
    void theAttributedConnectionKeepsItsFlowAlsoWhenATieNamesOnlyTheConnector(BulkFlow flow) {
        List<ClientConnection> tied = List.of(
                new ClientConnection("connector-consumer-s-0", "1", 500, 80, flow),
                new ClientConnection("connector-consumer-s-1", "1", 500, 80, flow));
        ClientConnection owner = ByteCountAttribution.attributeConnections(
                        List.of(new SocketCounts(7, "1", 500, 80)), tied)
                .get(7);
        assertEquals("connector-consumer-s-*", owner.clientId);
        assertEquals(flow, owner.flow);
    }

    /** The owning client.id by socket fd. */
    private static Map<Integer, String> attribute(List<SocketCounts> sockets, List<ClientConnection> clients) {
        return ByteCountAttribution.attributeConnections(sockets, clients).entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, owner -> owner.getValue().clientId));
    }

    /** A client connection whose flow does not matter to the test. */
    private static ClientConnection client(String clientId, String nodeId, long bytesRead, long bytesWritten) {
        return new ClientConnection(clientId, nodeId, bytesRead, bytesWritten, BulkFlow.UNKNOWN);
    }
}
