package io.tcpsight.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashSet;
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
    void resolvedServersAreEveryAddressWithItsPortAndAnUnknownHostNone() throws Exception {
        assertEquals(
                Set.of(new InetSocketAddress("127.0.0.1", 9092), new InetSocketAddress("::1", 9093)),
                BootstrapServers.resolve("no-such-host.invalid:9094,127.0.0.1:9092,[::1]:9093"));
        assertEquals(Set.of(), BootstrapServers.resolve(null));
        // a name gives each of its addresses, as the sockets' peers are (numeric, from the kernel)
        Set<InetSocketAddress> localhost = new HashSet<>();
        for (InetAddress address : InetAddress.getAllByName("localhost")) {
            localhost.add(new InetSocketAddress(InetAddress.getByAddress(address.getAddress()), 9095));
        }
        assertEquals(localhost, BootstrapServers.resolve("localhost:9095"));
    }
}
