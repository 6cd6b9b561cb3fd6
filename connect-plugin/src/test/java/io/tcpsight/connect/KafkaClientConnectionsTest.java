package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpsight.model.BulkFlow;
import io.tcpsight.sampling.ByteCountAttribution;
import io.tcpsight.sampling.ByteCountAttribution.ClientConnection;
import io.tcpsight.sampling.ByteCountAttribution.SocketCounts;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KafkaClientConnectionsTest {
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
}
