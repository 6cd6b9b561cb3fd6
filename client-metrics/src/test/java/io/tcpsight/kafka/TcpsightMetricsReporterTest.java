package io.tcpsight.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.export.TcpsightJmx;
import io.tcpsight.internal.kafka.ClientReporter;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.monitor.JudgedConnection;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.LoopbackConnections;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class TcpsightMetricsReporterTest {
    private final List<String> logged = new ArrayList<>();

    private TcpsightMetricsReporter reporter() {
        return new TcpsightMetricsReporter(logged::add, logged::add);
    }

    @Test
    void configureRecordsTheSettingsAndNeverASecret() {
        Map<String, Object> config = new HashMap<>();
        config.put("client.id", "consumer-orders-1");
        config.put("bootstrap.servers", "b1:9092,b2:9092");
        config.put("receive.buffer.bytes", "65536");
        config.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required password=\"hunter2\";");
        config.put("ssl.truststore.password", "hunter3");
        config.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        TcpsightMetricsReporter reporter = reporter();
        reporter.configure(config);
        String all = String.join("\n", logged);
        assertTrue(all.contains("client.id=consumer-orders-1 (consumer)"), all);
        assertTrue(all.contains("receive.buffer.bytes=65536"), all);
        assertFalse(all.contains("hunter"), all);
        reporter.close();
    }

    @Test
    void aClientIdCannotForgeALogLine() {
        TcpsightMetricsReporter reporter = reporter();
        reporter.configure(Map.of("client.id", "app\n[ERROR] forged line", "bootstrap.servers", "b1:9092"));
        assertEquals(1, logged.size(), logged.toString());
        assertFalse(logged.get(0).contains("\n"), logged.get(0));
        reporter.close();
    }

    @Test
    void aBadTcpsightSettingIsOneLineNamingTheKeyAndTheClientRunsWithoutTheReporter() {
        TcpsightMetricsReporter reporter = reporter();
        reporter.configure(Map.of("client.id", "app-1", "tcpsight.sample.interval.ms", "soon"));
        reporter.init(List.of());
        reporter.close();
        assertEquals(1, logged.size(), logged.toString());
        String line = logged.get(0);
        assertTrue(line.startsWith("tcpsight reporter for client.id=app-1 is off, the client runs without it"), line);
        assertTrue(line.contains("tcpsight.sample.interval.ms=soon is not valid"), line);
        assertTrue(line.contains("correct the setting"), line);
        assertTrue(reporter.monitor().isEmpty());
    }

    @Test
    void onceRunningItTracksTheClientsBrokerConnectionsAndStaysQuietOnLoopback() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = TcpsightJmx.objectName(ClientReporter.JMX_TYPE, "consumer-local-1");
        try (LoopbackConnections broker = LoopbackConnections.ipv4().pairs(2)) {
            TcpsightMetricsReporter reporter = reporter();
            reporter.configure(Map.of(
                    "client.id",
                    "consumer-local-1",
                    "bootstrap.servers",
                    "127.0.0.1:" + broker.port(),
                    "receive.buffer.bytes",
                    "65536",
                    "group.id",
                    "g",
                    "tcpsight.sample.interval.ms",
                    "200"));
            reporter.init(List.of());
            try {
                long deadline = System.nanoTime() + 5_000_000_000L;
                while ((Integer) server.getAttribute(name, "TrackedConnections") < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertEquals(
                        2, server.getAttribute(name, "TrackedConnections"), "the two client ends to the broker port");
                // The findings are the first round's that judged both: a fixed wait once read them before any round
                // had ended (a JVM given a tenth of a core), when no finding is no evidence of a healthy path.
                ConnectionMonitor monitor = reporter.monitor().orElseThrow();
                List<TrackedConnection> tracked = monitor.registry().connections();
                long judging = System.nanoTime() + 30_000_000_000L;
                while (!JudgedConnection.connections(monitor.lastRound().connections())
                                .containsAll(tracked)
                        && System.nanoTime() < judging) {
                    Thread.sleep(50);
                }
                List<TrackedConnection> judged =
                        JudgedConnection.connections(monitor.lastRound().connections());
                assertTrue(
                        judged.containsAll(tracked),
                        "a round judged both within 30 s; rounds so far: "
                                + monitor.lastRoundNanos().isPresent());
                assertEquals(0, server.getAttribute(name, "FindingCount"), "a loopback path is healthy: " + logged);
                // no Kafka client's byte counts match these sockets: sampled, and named by nobody
                for (TrackedConnection connection : tracked) {
                    assertTrue(
                            connection.identity().clientId().isEmpty()
                                    && connection.identity().ownerKnownBy() == OwnerKnownBy.UNPLACED,
                            connection.identity().describe() + " known by "
                                    + connection.identity().ownerKnownBy().label());
                }
            } finally {
                reporter.close();
            }
        }
        assertFalse(server.isRegistered(name));
    }
}
