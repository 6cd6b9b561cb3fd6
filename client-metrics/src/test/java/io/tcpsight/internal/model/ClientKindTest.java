package io.tcpsight.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Connect's client.id convention, and client.ids that only look like it (a client.id is whatever a client sends). */
class ClientKindTest {
    @Test
    void aConnectTaskClientNamesItsConnectorAndTask() {
        assertEquals(ClientKind.CONNECT_CONSUMER, ClientKind.fromClientId("connector-consumer-sink-to-s3-12"));
        assertEquals(Optional.of("sink-to-s3"), ClientKind.connectorName("connector-consumer-sink-to-s3-12"));
        assertEquals(OptionalInt.of(12), ClientKind.connectorTask("connector-consumer-sink-to-s3-12"));
        assertEquals(OptionalInt.of(0), ClientKind.connectorTask("connector-producer-jdbc-0"));
    }

    @Test
    void noTaskWhereTheIdDoesNotTellOne() {
        assertEquals(OptionalInt.empty(), ClientKind.connectorTask("connector-consumer-sink-*"), "connector only");
        assertEquals(OptionalInt.empty(), ClientKind.connectorTask("connector-consumer-x-99999999999"), "too long");
        assertEquals(OptionalInt.empty(), ClientKind.connectorTask("consumer-app-3"));
        assertEquals(OptionalInt.empty(), ClientKind.connectorTask(null));
    }
}
