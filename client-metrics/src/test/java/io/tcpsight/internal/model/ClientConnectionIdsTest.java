package io.tcpsight.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClientConnectionIdsTest {

    @Test
    void clientConnectionIdsNameTheirNode() {
        assertEquals("3", ClientConnectionIds.brokerNode("3"));
        assertEquals("bootstrap", ClientConnectionIds.brokerNode("-1"));
        assertEquals("2", ClientConnectionIds.brokerNode(Integer.toString(Integer.MAX_VALUE - 2)), "group coordinator");
        assertNull(
                ClientConnectionIds.brokerNode("127.0.0.1:9092-127.0.0.1:5000-0-1"), "a broker-side id is no node id");
    }

    @ParameterizedTest(name = "{0} client, connection {1}: {2}")
    @CsvSource({
        "TO_CLIENT, 1, TO_CLIENT",
        // a consumer's group coordinator (Integer.MAX_VALUE - 1) and its bootstrap connection: no fetches
        "TO_CLIENT, 2147483646, NONE",
        "TO_CLIENT, -1, NONE",
        "TO_BROKER, 3, TO_BROKER",
        "TO_BROKER, -2, NONE",
        "NONE, 1, NONE",
    })
    void aConnectionCarriesWhatItsClientTypeDoesUnlessItIsACoordinatorOrBootstrapConnection(
            BulkFlow clientType, String connectionId, BulkFlow expected) {
        assertEquals(expected, ClientConnectionIds.flow(clientType, connectionId));
    }
}
