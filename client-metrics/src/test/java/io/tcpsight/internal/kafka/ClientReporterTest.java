package io.tcpsight.internal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.sampling.SampledConnections;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    /**
     * A path is the cluster's by its broker's address, not its port: two clusters in one JVM both
     * listen on 9092 (a reporter once quoted another cluster's 30 ms path for its own 100 ms one).
     */
    @Test
    void aPathIsThisClustersByItsBrokersAddressNotItsPort() {
        ClientReporter reporter = new ClientReporter(line -> {}, line -> {});
        reporter.configure(
                Map.of("client.id", "far-consumer", "group.id", "g", "bootstrap.servers", "10.0.0.3:9092,[::1]:9094"));
        assertTrue(reporter.onThisCluster(new InetSocketAddress("10.0.0.3", 9092)));
        assertFalse(
                reporter.onThisCluster(new InetSocketAddress("10.0.0.2", 9092)), "another cluster on the same port");
        assertFalse(reporter.onThisCluster(new InetSocketAddress("10.0.0.3", 9093)), "another port of the same host");
        assertTrue(reporter.onThisCluster(new InetSocketAddress("::1", 9094)), "an IPv6 bootstrap server");
    }

    /**
     * Before any socket is its own, the reporter judges its buffer on the slowest path to its own
     * cluster: 100 ms to its bootstrap server, not another cluster's 300 ms on the same port.
     */
    @Test
    void theBufferIsJudgedOnItsOwnClustersPathNotASlowerOneOnTheSamePort() {
        ClientReporter reporter = new ClientReporter(line -> {}, line -> {});
        reporter.configure(Map.of(
                "client.id", "far-consumer",
                "group.id", "g",
                "bootstrap.servers", "10.0.0.3:9092",
                "receive.buffer.bytes", "65536"));
        InetSocketAddress own = new InetSocketAddress("10.0.0.3", 9092);
        List<Finding> findings = reporter.settingsOnPath(List.of(
                SampledConnections.clientTo(own, 1, 100_000),
                SampledConnections.clientTo(new InetSocketAddress("10.0.0.2", 9092), 2, 300_000)));
        assertFalse(findings.isEmpty(), "a 64 KiB buffer 100 ms away is judged");
        for (Finding finding : findings) {
            assertEquals(Optional.of(own), finding.connection().remote(), finding.toString());
        }
    }
}
