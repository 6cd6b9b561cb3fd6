package io.tcpsight.internal.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.RuleFacts;
import io.tcpsight.internal.diagnose.connection.SmallReceiveBuffer;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.FindingsBoard;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.LoopbackConnections;
import io.tcpsight.internal.tcp.TcpSockets;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
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
                clientEnd(channel).withClientId(clientId).withNodeId("1"));
    }

    /** Each client's end tracked under a client.id of its own, to node 1. */
    static void trackEach(ConnectionRegistry registry, List<SocketChannel> clients) throws Exception {
        for (SocketChannel client : clients) {
            track(registry, client, "consumer-g-" + client.hashCode());
        }
    }

    /** A binder of the monitor's connections, bound to {@code meters}. */
    static ConnectionMeters boundTo(ConnectionMonitor monitor, SimpleMeterRegistry meters) {
        ConnectionMeters binder = new ConnectionMeters(monitor);
        binder.bindTo(meters);
        return binder;
    }

    /** The client's end of a loopback connection, as a tracked client connection is named. */
    static ConnectionIdentity clientEnd(SocketChannel channel) throws Exception {
        return ConnectionIdentity.of(Role.CLIENT, (InetSocketAddress) channel.getLocalAddress(), (InetSocketAddress)
                channel.getRemoteAddress());
    }

    /**
     * Churn: each connection counts as opened at its first sampled round and as closed when it
     * ends, under the same tags; a connection forgotten as another client's did not close.
     */
    @Test
    void connectionsOpenedAndClosedCountChurnPerTagSet() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        ConnectionMonitor monitor = monitor(registry, TcpsightConfig.defaults(), List.of());
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ConnectionMeters binder = boundTo(monitor, meters);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(3)) {
            trackEach(registry, loopback.clients);
            monitor.round();
            monitor.round();
            assertEquals(3.0, churn(meters, "opened"), "each connection once, not once per round");
            assertEquals(0.0, churn(meters, "closed"));
            TrackedConnection released = registry.get(TcpSockets.fileDescriptor(loopback.clients.get(0)))
                    .orElseThrow();
            TrackedConnection forgotten = registry.get(TcpSockets.fileDescriptor(loopback.clients.get(1)))
                    .orElseThrow();
            registry.release(TcpSockets.fileDescriptor(loopback.clients.get(0)));
            registry.forget(forgotten);
            assertTrue(released.countedAs().isEmpty(), "nothing kept on a connection that closed");
            assertTrue(forgotten.countedAs().isEmpty(), "nothing kept on a connection forgotten");
            loopback.clients.get(2).close(); // the sampler finds the descriptor gone
            monitor.round();
            assertEquals(2.0, churn(meters, "closed"), "released and gone; the forgotten one did not close");
            assertEquals(3.0, churn(meters, "opened"));
            assertEquals(0, binder.countedConnections(), "nothing kept for a connection let go, forgotten ones too");
        }
    }

    /**
     * Two binders on one monitor (the agent's endpoint and the OTLP push): the first keeps each connection's
     * counted tag set on the connection, the second in its own map; each counts every opening and close once.
     * A binder bound after the first is unsubscribed takes the connections' own field.
     */
    @Test
    void twoBindersEachCountChurnOnceAndALaterOneTakesTheFieldOver() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        ConnectionMonitor monitor = monitor(registry, TcpsightConfig.defaults(), List.of());
        SimpleMeterRegistry first = new SimpleMeterRegistry();
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        ConnectionMeters firstBinder = boundTo(monitor, first);
        ConnectionMeters secondBinder = boundTo(monitor, second);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(3)) {
            trackEach(registry, loopback.clients);
            monitor.round();
            monitor.round();
            for (SimpleMeterRegistry meters : List.of(first, second)) {
                assertEquals(3.0, churn(meters, "opened"), "each connection once, in each registry");
            }
            assertEquals(3, firstBinder.countedConnections());
            assertEquals(3, secondBinder.countedConnections());
            registry.release(TcpSockets.fileDescriptor(loopback.clients.get(0)));
            monitor.round();
            for (SimpleMeterRegistry meters : List.of(first, second)) {
                assertEquals(1.0, churn(meters, "closed"), "the released one, in each registry");
            }
            assertEquals(2, firstBinder.countedConnections());
            assertEquals(2, secondBinder.countedConnections());

            for (TrackedConnection open : registry.connections()) {
                assertTrue(open.countedAs().isPresent(), "the first binder keeps it on the connection");
            }
            firstBinder.unsubscribe();
            for (TrackedConnection open : registry.connections()) {
                assertTrue(open.countedAs().isEmpty(), "freed by the unsubscribed binder");
            }
            SimpleMeterRegistry third = new SimpleMeterRegistry();
            ConnectionMeters thirdBinder = boundTo(monitor, third);
            monitor.round();
            for (TrackedConnection open : registry.connections()) {
                assertTrue(open.countedAs().isPresent(), "taken by the third binder");
            }
            assertEquals(2.0, churn(third, "opened"), "the open ones, first seen by the third");
            assertEquals(2, thirdBinder.countedConnections());
            loopback.clients.get(1).close(); // the sampler finds the descriptor gone
            monitor.round();
            assertEquals(1.0, churn(third, "closed"));
            assertEquals(2.0, churn(second, "closed"));
            assertEquals(1.0, churn(first, "closed"), "unsubscribed: nothing counted since");
            assertEquals(1, thirdBinder.countedConnections());
            assertEquals(1, secondBinder.countedConnections());
            secondBinder.unsubscribe();
            thirdBinder.unsubscribe();
        }
    }

    @Test
    void everyRoundIsTimedOnceWhatItCostsTheHost() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        ConnectionMonitor monitor = monitor(registry, TcpsightConfig.defaults(), List.of());
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        new ConnectionMeters(monitor).bindTo(meters);
        assertTrue(monitor.lastRoundNanos().isEmpty(), "no round yet");
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(3)) {
            for (SocketChannel client : loopback.clients) {
                track(registry, client, "consumer-g-" + client.hashCode());
            }
            long before = System.nanoTime();
            monitor.round();
            monitor.round();
            monitor.round();
            long wall = System.nanoTime() - before;
            Timer rounds = meters.find("tcpsight.round.duration").timer();
            assertEquals(3, rounds.count());
            double recorded = rounds.totalTime(TimeUnit.NANOSECONDS);
            assertTrue(recorded > 0 && recorded <= wall, "recorded " + recorded + " ns of " + wall + " ns");
            assertTrue(
                    rounds.max(TimeUnit.NANOSECONDS) >= monitor.lastRoundNanos().getAsLong(),
                    "the latest is among them");
            assertEquals(
                    0,
                    meters.find("tcpsight.round.preparation.duration").timer().count(),
                    "no step before the rounds: nothing to time");
            monitor.preparedIn(1_500_000);
            monitor.round();
            assertEquals(
                    1.5,
                    meters.find("tcpsight.round.preparation.duration").timer().totalTime(TimeUnit.MILLISECONDS),
                    1e-9);
            assertEquals(10.0, meters.find("tcpsight.round.interval").gauge().value(), "the default 10 s");
            loopback.clients.get(0).close();
            monitor.round();
            assertEquals(
                    1.0,
                    meters.find("tcpsight.sample.errors")
                            .tags("reason", "gone")
                            .functionCounter()
                            .count(),
                    "a closed descriptor is a sample that failed, gone");
            assertEquals(
                    0.0,
                    meters.find("tcpsight.sample.errors")
                            .tags("reason", "failed")
                            .functionCounter()
                            .count());
        }
    }

    private static double churn(SimpleMeterRegistry meters, String which) {
        return meters.find("tcpsight.connection." + which)
                .tags("role", "client", "node.id", "1")
                .counter()
                .count();
    }

    @Test
    void meterNamesUnitsAndTagsFollowTheConventions() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        Finding finding = SmallReceiveBuffer.RULE
                .judge(RuleFacts.smallBufferConsumer(100).build(), TcpsightConfig.defaults())
                .get();
        ConnectionMonitor monitor = monitor(registry, TcpsightConfig.defaults(), List.of(finding));
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        new ConnectionMeters(monitor).bindTo(meters);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(3)) {
            for (SocketChannel client : loopback.clients) {
                track(registry, client, "consumer-g-" + client.hashCode());
            }
            monitor.round();
            LoopbackConnections.transfer(loopback.clients.get(0), loopback.accepted.get(0), 1 << 20);
            monitor.round();
        }
        Timer rtt = meters.find("tcpsight.connection.rtt")
                .tags("role", "client", "node.id", "1", "listener", "unknown")
                .timer();
        assertNotNull(rtt);
        assertEquals(6, rtt.count(), "3 connections of 3 clients x 2 rounds, one series");
        assertEquals(1, meters.find("tcpsight.connection.rtt").timers().size());
        double maxSeconds = rtt.max(TimeUnit.SECONDS);
        assertTrue(maxSeconds > 0 && maxSeconds < 0.001, "a loopback RTT: " + maxSeconds + " s");
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
            String name = meter.getId().getName();
            assertTrue(name.matches("tcpsight(\\.[a-z]+)+"), name);
            boolean perClient = meter.getId().getTags().stream()
                    .anyMatch(tag ->
                            tag.getKey().equals("client.id") || tag.getKey().equals("client.port"));
            assertEquals(
                    name.startsWith("tcpsight.top.connection."),
                    perClient,
                    meter.getId().toString());
            assertTrue(
                    meter.getId().getTags().stream()
                            .noneMatch(tag -> tag.getKey().equals("peer")),
                    "no peer addresses by default: " + meter.getId());
        }
    }

    @Test
    void tagSetsBeyondTheCapShareOneOtherSet() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(40);
        ConnectionMonitor monitor = monitor(registry, TcpsightConfig.defaults(), List.of());
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        new ConnectionMeters(monitor).bindTo(meters);
        int nodes = ConnectionMeters.MAX_TAG_SETS + 4;
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(nodes)) {
            int node = 0;
            for (SocketChannel client : loopback.clients) {
                registry.track(
                        TcpSockets.fileDescriptor(client), 0, clientEnd(client).withNodeId(Integer.toString(node++)));
            }
            monitor.round();
        }
        Collection<Timer> rtts = meters.find("tcpsight.connection.rtt").timers();
        assertEquals(ConnectionMeters.MAX_TAG_SETS + 1, rtts.size(), "16 node tag sets and one other");
        Timer other = meters.find("tcpsight.connection.rtt")
                .tags("listener", "other", "node.id", "other")
                .timer();
        assertNotNull(other);
        assertEquals(4, other.count(), "the four connections past the cap");
    }

    @Test
    void warnAndCriticalFindingsAreCountedPerTagSetForAlertsToRouteBy() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        List<Finding> extra = new ArrayList<>();
        ConnectionMonitor monitor = monitor(registry, TcpsightConfig.defaults(), extra);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        new ConnectionMeters(monitor).bindTo(meters);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(3)) {
            List<ConnectionIdentity> identities = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                SocketChannel client = loopback.clients.get(i);
                ConnectionIdentity identity =
                        clientEnd(client).withClientId("client-" + i).withNodeId(i < 2 ? "1" : "2");
                registry.track(TcpSockets.fileDescriptor(client), 0, identity);
                identities.add(identity);
            }
            extra.add(finding(Severity.WARN, identities.get(0)));
            extra.add(finding(Severity.WARN, identities.get(1)));
            extra.add(finding(Severity.CRITICAL, identities.get(2)));
            extra.add(finding(Severity.INFO, identities.get(2)));
            monitor.round();
            Collection<Gauge> rows = meters.find("tcpsight.connection.findings").gauges();
            assertEquals(2, rows.size(), "node 1 at warn, node 2 at critical; info is not for alerts: " + rows);
            Gauge node1 = meters.find("tcpsight.connection.findings")
                    .tags("rule", "small-receive-buffer", "severity", "warn", "role", "client", "node.id", "1")
                    .gauge();
            assertNotNull(node1);
            assertEquals(2.0, node1.value(), "two connections to node 1");
            assertEquals("unknown", node1.getId().getTag("listener"));
            assertNull(node1.getId().getTag("client.id"), "no per-client tag");
            Gauge node2 = meters.find("tcpsight.connection.findings")
                    .tags("severity", "critical", "node.id", "2")
                    .gauge();
            assertNotNull(node2);
            assertEquals(1.0, node2.value());
            extra.clear();
            monitor.round();
            assertTrue(
                    meters.find("tcpsight.connection.findings").gauges().isEmpty(),
                    "a tag set whose findings cleared loses its row");
        }
    }

    /**
     * One formula for the window ceiling: on the same sample, the histogram, the worst-connections
     * row and the small-receive-buffer finding's evidence show one value. A fixed 64 KiB receive
     * buffer on loopback, judged against a target no loopback window reaches.
     */
    @Test
    void theFindingAndTheMetersShowOneWindowCeiling() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(4);
        ConnectionMonitor monitor = new ConnectionMonitor(
                registry,
                TcpsightConfig.from(
                        Map.of("tcpsight.rule.min.rtt.ms", "0", "tcpsight.target.throughput.mbit", "400000")),
                connection ->
                        KafkaSettings.fromClientConfig(Map.of("receive.buffer.bytes", "65536"), ClientKind.CONSUMER),
                KernelFacts::unknown,
                new FindingsBoard(0, finding -> {}));
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        new ConnectionMeters(monitor).bindTo(meters);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4()) {
            SocketChannel client = loopback.connectPair(65536);
            registry.track(
                    TcpSockets.fileDescriptor(client),
                    0,
                    clientEnd(client).withClientId("fixed-consumer").ownerKnownBy(OwnerKnownBy.SOLE_CLIENT));
            monitor.round();
        }
        Finding finding = monitor.board().current().stream()
                .filter(f -> f.rule() == RuleId.SMALL_RECEIVE_BUFFER)
                .findFirst()
                .orElseThrow(() -> new AssertionError(
                        "no small-receive-buffer: " + monitor.board().current()));
        double judged =
                ((Number) finding.evidence("windowCeiling").orElseThrow().value()).doubleValue();
        DistributionSummary histogram =
                meters.find("tcpsight.connection.window.ceiling").summary();
        assertEquals(1, histogram.count());
        assertEquals(judged, histogram.totalAmount(), "the histogram's one observation");
        assertEquals(
                judged,
                meters.find("tcpsight.top.connection.window.ceiling").gauge().value(),
                "the worst-connections row");
        assertTrue(judged <= 65536, "a window held by the fixed buffer: " + judged);
    }

    private static Finding finding(Severity severity, ConnectionIdentity connection) {
        return new Finding(
                RuleId.SMALL_RECEIVE_BUFFER,
                severity,
                connection,
                List.of(),
                new Remedy(List.of(), "a test finding on a tracked connection"));
    }

    /**
     * Rows that stay keep their meters: a name whose only row was removed and added again every round
     * had two collectors for a moment, and a scrape in that moment failed.
     */
    @Test
    void scrapesDuringRoundsAllAnswer() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        List<Finding> extra = new ArrayList<>();
        ConnectionMonitor monitor = monitor(registry, TcpsightConfig.defaults(), extra);
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new ConnectionMeters(monitor).bindTo(prometheus);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(1)) {
            SocketChannel client = loopback.clients.get(0);
            track(registry, client, "alone");
            extra.add(finding(
                    Severity.WARN, clientEnd(client).withClientId("alone").withNodeId("1")));
            monitor.round();
            AtomicBoolean done = new AtomicBoolean();
            AtomicLong rounds = new AtomicLong();
            Thread rounder = new Thread(() -> {
                while (!done.get()) {
                    monitor.round();
                    rounds.incrementAndGet();
                }
            });
            rounder.start();
            int scrapes = 0;
            int failed = 0;
            String first = null;
            try {
                while (rounds.get() < 20_000) {
                    try {
                        prometheus.scrape();
                    } catch (RuntimeException failure) {
                        failed++;
                        first = first == null ? failure.toString() : first;
                    }
                    scrapes++;
                }
            } finally {
                done.set(true);
                rounder.join();
            }
            assertEquals(
                    0, failed, scrapes + " scrapes during " + rounds.get() + " rounds; the first failure: " + first);
            assertTrue(prometheus.scrape().contains("tcpsight_top_connection_rtt_seconds{"));
            registry.release(TcpSockets.fileDescriptor(client));
        }
    }

    /**
     * Two hosts' connections can share a client.id and an ephemeral port, and without address labels
     * their rows would carry the same labels, which a Prometheus scrape refuses whole. The table keeps
     * the worse of them and fills its size from the next.
     */
    @Test
    void connectionsOneRowCannotTellApartGiveOneRowAndTheScrapeStillAnswers() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        List<Finding> extra = new ArrayList<>();
        ConnectionMonitor monitor =
                monitor(registry, TcpsightConfig.from(Map.of("tcpsight.metrics.top.connections", "2")), extra);
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new ConnectionMeters(monitor).bindTo(prometheus);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4();
                SocketChannel first = SocketChannel.open();
                SocketChannel second = SocketChannel.open()) {
            first.bind(new InetSocketAddress("127.0.0.1", 0));
            first.connect(loopback.listener.getLocalAddress());
            int port = ((InetSocketAddress) first.getLocalAddress()).getPort();
            second.bind(new InetSocketAddress("127.0.0.2", port));
            second.connect(loopback.listener.getLocalAddress());
            SocketChannel other = loopback.connectPair(0);
            track(registry, first, "same-app");
            track(registry, second, "same-app");
            track(registry, other, "other-app");
            ConnectionIdentity worse =
                    clientEnd(second).withClientId("same-app").withNodeId("1");
            extra.add(finding(Severity.WARN, worse));
            monitor.round();

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            prometheus.scrape(out);
            String scrape = out.toString(StandardCharsets.UTF_8);
            List<String> rows = scrape.lines()
                    .filter(line -> line.startsWith("tcpsight_top_connection_findings{"))
                    .collect(Collectors.toList());
            assertEquals(2, rows.size(), scrape);
            assertTrue(
                    rows.stream()
                            .anyMatch(row -> row.contains("client_id=\"same-app\"")
                                    && row.contains("client_port=\"" + port + "\"")
                                    && row.endsWith(" 1.0")),
                    "the worse of the two, the one with a finding: " + rows);
            assertTrue(rows.stream().anyMatch(row -> row.contains("client_id=\"other-app\"")), rows.toString());
            for (SocketChannel client : List.of(first, second, other)) {
                registry.release(TcpSockets.fileDescriptor(client));
            }
        }
    }

    @Test
    void theWorstConnectionsTableShowsConnectionsWithFindingsFirstAndForgetsClosedOnes() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        List<Finding> extra = new ArrayList<>();
        ConnectionMonitor monitor = monitor(
                registry,
                TcpsightConfig.from(
                        Map.of("tcpsight.metrics.top.connections", "2", "tcpsight.metrics.peer.labels", "true")),
                extra);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        new ConnectionMeters(monitor).bindTo(meters);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(3)) {
            for (int i = 0; i < 3; i++) {
                track(registry, loopback.clients.get(i), "client-" + i);
            }
            ConnectionIdentity troubled = registry.connections().stream()
                    .filter(connection ->
                            connection.identity().clientId().orElse("").equals("client-1"))
                    .findFirst()
                    .get()
                    .identity();
            extra.add(new Finding(
                    RuleId.SMALL_RECEIVE_BUFFER,
                    Severity.WARN,
                    troubled,
                    List.of(),
                    new Remedy(List.of(), "a test finding on a tracked connection")));
            monitor.round();
            Collection<Gauge> rows =
                    meters.find("tcpsight.top.connection.findings").gauges();
            assertEquals(2, rows.size(), "top.connections=2 of 3");
            Gauge first = meters.find("tcpsight.top.connection.findings")
                    .tag("client.id", "client-1")
                    .gauge();
            assertNotNull(first, "the connection with a finding is in the table");
            assertEquals(1.0, first.value());
            assertEquals(
                    Integer.toString(troubled.local().orElseThrow().getPort()),
                    first.getId().getTag("client.port"));
            assertEquals(
                    ConnectionIdentity.address(troubled.remote().orElseThrow()),
                    first.getId().getTag("peer"));
            assertEquals(2, meters.find("tcpsight.top.connection.rtt").gauges().size());
            for (SocketChannel client : loopback.clients) {
                registry.release(TcpSockets.fileDescriptor(client));
            }
            extra.clear();
            monitor.round();
            assertTrue(
                    meters.find("tcpsight.top.connection.rtt").gauges().isEmpty(),
                    "rows of departed connections expire in the next round");
        }
    }

    @Test
    void jmxShowsFindingsAsJsonAndTheWorstConnections() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        Finding finding = SmallReceiveBuffer.RULE
                .judge(RuleFacts.smallBufferConsumer(100).build(), TcpsightConfig.defaults())
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
