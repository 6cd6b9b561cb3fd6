package io.tcpsight.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BootstrapServersTest {
    @Test
    void bootstrapServersParseLikeKafkas() {
        assertEquals(
                List.of(InetSocketAddress.createUnresolved("a", 9092), InetSocketAddress.createUnresolved("::1", 9093)),
                BootstrapServers.parse(" a:9092, [::1]:9093, junk"));
        assertEquals(
                List.of(InetSocketAddress.createUnresolved("b", 9094), InetSocketAddress.createUnresolved("c", 1)),
                BootstrapServers.parse(List.of("b:9094", "PLAINTEXT://c:1")));
        assertEquals(List.of(), BootstrapServers.parse(null));
    }

    @Test
    void resolvedServersAreEveryAddressWithItsPortAndAnUnknownHostNone() {
        assertEquals(
                Set.of(new InetSocketAddress("127.0.0.1", 9092), new InetSocketAddress("::1", 9093)),
                BootstrapServers.resolve("127.0.0.1:9092,[::1]:9093,no-such-host.invalid:9094"));
        assertEquals(Set.of(), BootstrapServers.resolve(null));
    }
}
