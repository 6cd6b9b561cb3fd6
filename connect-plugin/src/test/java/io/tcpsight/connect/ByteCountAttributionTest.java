package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.connect.ByteCountAttribution.ClientConnection;
import io.tcpsight.connect.ByteCountAttribution.SocketCounts;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ByteCountAttributionTest {
    @Test
    void idleConnectionsMatchTheirClientsExactly() {
        List<SocketCounts> sockets = List.of(new SocketCounts(10, "1", 5_000, 700), new SocketCounts(11, "1", 9_100, 1_200));
        List<ClientConnection> clients = List.of(new ClientConnection("connector-consumer-a-0", "1", 9_100, 1_200),
                new ClientConnection("connector-consumer-b-0", "1", 5_000, 700));
        Map<Integer, String> owners = ByteCountAttribution.attribute(sockets, clients);
        assertEquals("connector-consumer-b-0", owners.get(10));
        assertEquals("connector-consumer-a-0", owners.get(11));
    }

    @Test
    void busyConnectionsMatchWithBytesStillQueuedInTheKernel() {
        // the kernel received 300 KB Kafka has not read yet; Kafka wrote 50 bytes not yet acknowledged
        List<SocketCounts> sockets = List.of(new SocketCounts(10, "1", 10_300_000, 40_000));
        List<ClientConnection> clients = List.of(new ClientConnection("consumer-x", "1", 10_000_000, 40_050),
                new ClientConnection("consumer-y", "1", 10_400_000, 40_050));
        assertEquals("consumer-x", ByteCountAttribution.attribute(sockets, clients).get(10));
    }

    @Test
    void aClientCannotHaveReadMoreThanTheKernelReceived() {
        assertEquals(-1, ByteCountAttribution.distance(new SocketCounts(1, null, 100, 10), new ClientConnection("c", "1", 101, 10)));
    }

    @Test
    void theBrokerOfTheSocketMustBeTheClientsNodeItsCoordinatorOrABootstrapConnection() {
        assertTrue(ByteCountAttribution.sameBroker("1", "1"));
        assertTrue(ByteCountAttribution.sameBroker("1", Integer.toString(Integer.MAX_VALUE - 1)));
        assertTrue(ByteCountAttribution.sameBroker("1", "-1"));
        assertFalse(ByteCountAttribution.sameBroker("1", "2"));
        assertEquals(-1, ByteCountAttribution.distance(new SocketCounts(1, "2", 100, 10), new ClientConnection("c", "1", 100, 10)));
    }

    @Test
    void tiedTasksOfOneConnectorNameTheConnectorAndTiesAcrossConnectorsNameNobody() {
        List<ClientConnection> sameConnector = List.of(new ClientConnection("connector-consumer-s-1", "1", 500, 80),
                new ClientConnection("connector-consumer-s-2", "1", 500, 80));
        Map<Integer, String> owners = ByteCountAttribution.attribute(List.of(new SocketCounts(7, "1", 500, 80)), sameConnector);
        assertEquals("connector-consumer-s-*", owners.get(7));

        List<ClientConnection> twoConnectors = List.of(new ClientConnection("connector-consumer-s-1", "1", 500, 80),
                new ClientConnection("connector-consumer-t-1", "1", 500, 80));
        assertTrue(ByteCountAttribution.attribute(List.of(new SocketCounts(7, "1", 500, 80)), twoConnectors).isEmpty());
    }

    @Test
    void eachClientConnectionOwnsOneSocketAtMost() {
        List<SocketCounts> sockets = List.of(new SocketCounts(1, "1", 1_000, 100), new SocketCounts(2, "1", 1_010, 100));
        Map<Integer, String> owners = ByteCountAttribution.attribute(sockets, List.of(new ClientConnection("only", "1", 1_000, 100)));
        assertEquals(1, owners.size());
        assertEquals("only", owners.get(1));
    }
}
