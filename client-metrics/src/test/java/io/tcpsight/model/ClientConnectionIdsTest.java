package io.tcpsight.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class ClientConnectionIdsTest {

    @Test
    void clientConnectionIdsNameTheirNode() {
        assertEquals("3", ClientConnectionIds.brokerNode("3"));
        assertEquals("bootstrap", ClientConnectionIds.brokerNode("-1"));
        assertEquals("2", ClientConnectionIds.brokerNode(Integer.toString(Integer.MAX_VALUE - 2)), "group coordinator");
        assertNull(
                ClientConnectionIds.brokerNode("127.0.0.1:9092-127.0.0.1:5000-0-1"), "a broker-side id is no node id");
    }
}
