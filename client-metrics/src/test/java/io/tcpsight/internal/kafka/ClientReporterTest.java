package io.tcpsight.internal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpsight.internal.model.ClientKind;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClientReporterTest {
    @Test
    void kindAndBrokerPortsComeFromTheClientConfig() {
        assertEquals(ClientKind.PRODUCER, ClientReporter.kindOf("app", Map.of("key.serializer", "x")));
        assertEquals(ClientKind.CONSUMER, ClientReporter.kindOf("app", Map.of("group.id", "g")));
        assertEquals(ClientKind.ADMIN, ClientReporter.kindOf("app", Map.of()));
        assertEquals(
                ClientKind.CONNECT_CONSUMER,
                ClientReporter.kindOf("connector-consumer-x-0", Map.of("key.serializer", "x")));
        assertEquals(Set.of(9092, 9093), ClientReporter.bootstrapPorts("a:9092, [::1]:9093,b"));
        assertEquals(Set.of(9094), ClientReporter.bootstrapPorts(List.of("a:9094")));
    }
}
