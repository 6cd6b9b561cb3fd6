package io.tcpsight.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpsight.config.TcpsightConfig;
import io.tcpsight.diagnose.ConnectionRules;
import io.tcpsight.diagnose.ConnectionRulesTestAccess;
import io.tcpsight.diagnose.Finding;
import io.tcpsight.diagnose.FindingsBoard;
import io.tcpsight.model.ConnectionIdentity;
import io.tcpsight.model.KafkaSettings;
import io.tcpsight.model.KernelFacts;
import io.tcpsight.model.Role;
import io.tcpsight.monitor.ConnectionMonitor;
import io.tcpsight.sampling.ConnectionRegistry;
import io.tcpsight.tcp.LoopbackConnections;
import io.tcpsight.tcp.TcpSockets;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** Micrometer and JMX over a real monitor of real loopback connections. */
class ExportersTest {

    static ConnectionMonitor monitor(ConnectionRegistry registry, TcpsightConfig config, List<Finding> extra) {
        ConnectionMonitor monitor = new ConnectionMonitor(
                registry,
                config,
                connection -> KafkaSettings.unknown(),
                KernelFacts::unknown,
                new FindingsBoard(0, finding -> {}));
        monitor.addFindingSource(() -> extra);
        return monitor;
    }

    static void track(ConnectionRegistry registry, SocketChannel channel, String clientId) throws Exception {
        registry.track(
                TcpSockets.fileDescriptor(channel),
                0,
                ConnectionIdentity.of(
                                Role.CLIENT,
                                (InetSocketAddress) channel.getLocalAddress(),
                                (InetSocketAddress) channel.getRemoteAddress(),
                                Instant.now())
                        .withClientId(clientId)
                        .withNodeId("1"));
    }

    @Test
    void meterNamesUnitsAndTagsFollowTheConventions() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        Finding finding = ConnectionRules.smallReceiveBuffer(
                        ConnectionRulesTestAccess.smallBufferConsumer(), TcpsightConfig.defaults())
                .get();
        ConnectionMonitor monitor = monitor(registry, TcpsightConfig.defaults(), List.of(finding));
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        new TcpsightMeterBinder(monitor).bindTo(meters);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(3)) {
            for (SocketChannel client : loopback.clients) {
                track(registry, client, "consumer-g-1");
            }
            monitor.round();
            LoopbackConnections.transfer(loopback.clients.get(0), loopback.accepted.get(0), 1 << 20);
            monitor.round();
        }
        DistributionSummary rtt = meters.find("tcpsight.connection.rtt")
                .tags("role", "client", "client.id", "consumer-g-1", "node.id", "1", "listener", "unknown")
                .summary();
        assertNotNull(rtt);
        assertEquals(6, rtt.count(), "3 connections x 2 rounds, one series");
        assertTrue(rtt.max() > 0 && rtt.max() < 1, "seconds: " + rtt.max());
        assertEquals("seconds", rtt.getId().getBaseUnit());
        assertNotNull(meters.find("tcpsight.connection.window.ceiling").summary());
        assertNotNull(meters.find("tcpsight.connection.retransmits").counter());
        assertEquals(3.0, meters.find("tcpsight.connections").gauge().value());
        assertEquals(
                1.0,
                meters.find("tcpsight.findings")
                        .tags("rule", "small-receive-buffer", "severity", "critical")
                        .gauge()
                        .value());
        for (Meter meter : meters.getMeters()) {
            assertTrue(
                    meter.getId().getName().matches("tcpsight(\\.[a-z]+)+"),
                    meter.getId().getName());
            assertTrue(
                    meter.getId().getTags().stream()
                            .noneMatch(tag ->
                                    tag.getKey().equals("peer") || tag.getKey().equals("local.port")),
                    "no per-connection tags by default: " + meter.getId());
        }
    }

    @Test
    void perConnectionSeriesAndPeerLabelsOnlyWhenOptedIn() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        ConnectionMonitor monitor = monitor(
                registry,
                TcpsightConfig.from(
                        Map.of("tcpsight.metrics.per.connection", "true", "tcpsight.metrics.peer.labels", "true")),
                List.of());
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        new TcpsightMeterBinder(monitor).bindTo(meters);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(2)) {
            for (SocketChannel client : loopback.clients) {
                track(registry, client, "consumer-g-1");
            }
            monitor.round();
        }
        assertEquals(2, meters.find("tcpsight.connection.rtt").summaries().size());
        assertTrue(meters.find("tcpsight.connection.rtt").summaries().stream()
                .allMatch(s -> s.getId().getTag("peer") != null));
    }

    @Test
    void jmxShowsFindingsAsJsonAndTheWorstConnections() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        Finding finding = ConnectionRules.smallReceiveBuffer(
                        ConnectionRulesTestAccess.smallBufferConsumer(), TcpsightConfig.defaults())
                .get();
        ConnectionMonitor monitor = monitor(registry, TcpsightConfig.defaults(), List.of(finding));
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = TcpsightJmx.objectName("ClientMetrics", "consumer-g-1");
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(2);
                TcpsightJmx jmx = TcpsightJmx.register(monitor, "ClientMetrics", "consumer-g-1")) {
            for (SocketChannel client : loopback.clients) {
                track(registry, client, "consumer-g-1");
            }
            monitor.round();
            assertEquals(2, server.getAttribute(name, "TrackedConnections"));
            assertEquals(1, server.getAttribute(name, "CriticalCount"));
            String[] findings = (String[]) server.getAttribute(name, "Findings");
            assertTrue(findings[0].startsWith("{\"rule\":\"small-receive-buffer\""), findings[0]);
            String[] worst = (String[]) server.getAttribute(name, "WorstConnections");
            assertEquals(2, worst.length);
            assertTrue(worst[0].startsWith("client client.id=consumer-g-1 node=1 peer=127.0.0.1:"), worst[0]);
        }
        assertFalse(server.isRegistered(name), "closed means unregistered");
    }
}
