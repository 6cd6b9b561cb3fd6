package io.tcpsight.internal.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.FindingsBoard;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.export.ConnectionJson;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.sampling.CensusTracker;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.ConnectionSampler;
import io.tcpsight.internal.sampling.SampledConnections;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.LoopbackConnections;
import io.tcpsight.internal.tcp.TcpSockets;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The connection model on real loopback sockets. */
class ConnectionMonitorTest {

    static ConnectionIdentity identity(SocketChannel channel, Role role, String clientId) throws Exception {
        return ConnectionIdentity.of(role, (InetSocketAddress) channel.getLocalAddress(), (InetSocketAddress)
                        channel.getRemoteAddress())
                .withClientId(clientId)
                .ownerKnownBy(OwnerKnownBy.HOOKS);
    }

    /** One end of a loopback pair, tracked as client.id "c" in this role. */
    private static TrackedConnection tracked(ConnectionRegistry registry, SocketChannel end, Role role)
            throws Exception {
        return registry.track(TcpSockets.fileDescriptor(end), 0, identity(end, role, "c"))
                .get();
    }

    /** A monitor of this registry with the default configuration, no Kafka settings and this host's kernel. */
    private static ConnectionMonitor monitorOn(ConnectionRegistry registry, FindingsBoard board) {
        return new ConnectionMonitor(
                registry,
                TcpsightConfig.defaults(),
                connection -> KafkaSettings.unknown(),
                () -> HostTcpFacts.current().kernelFacts(),
                board);
    }

    @Test
    void theRegistryIsBoundedAndCountsWhatItRefused() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(2);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(2)) {
            for (SocketChannel channel : loopback.clients) {
                assertTrue(registry.track(TcpSockets.fileDescriptor(channel), 0, identity(channel, Role.CLIENT, "c"))
                        .isPresent());
            }
            SocketChannel third = loopback.connectPair(0);
            assertFalse(registry.track(TcpSockets.fileDescriptor(third), 0, identity(third, Role.CLIENT, "c"))
                    .isPresent());
            assertEquals(2, registry.size());
            assertEquals(1, registry.refused());
            registry.release(TcpSockets.fileDescriptor(loopback.clients.get(0)));
            assertEquals(1, registry.size());
        }
    }

    @Test
    void samplesDeriveTheIntervalAndAClosedDescriptorIsReleased() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(100);
        ConnectionSampler sampler = new ConnectionSampler(registry);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4()) {
            SocketChannel client = loopback.connectPair(0);
            SocketChannel server = loopback.accepted.get(0);
            TrackedConnection sending = tracked(registry, client, Role.CLIENT);
            TrackedConnection receiving = tracked(registry, server, Role.BROKER);
            assertEquals(2, sampler.sample().size());
            assertTrue(sampler.sampleOf(sending).interval().isEmpty(), "no interval on the first sample");
            assertTrue(sampler.sampleOf(sending).buffers().isPresent(), "buffer state read on the first sample");

            LoopbackConnections.transfer(client, server, 4 << 20);
            Thread.sleep(20);
            sampler.sample();
            IntervalStats sent = sampler.sampleOf(sending).interval().get();
            assertTrue(sent.bytesAcked() >= 4 << 20, "acked " + sent.bytesAcked());
            assertTrue(sent.segmentsOut() > 0);
            assertTrue(sampler.sampleOf(receiving).interval().get().bytesReceived() >= 4 << 20);
            assertTrue(sent.seconds() > 0);

            int closedFd = TcpSockets.fileDescriptor(client);
            client.close();
            sampler.sample();
            assertFalse(registry.get(closedFd).isPresent(), "EBADF released the connection");
            assertEquals(1, registry.size());
            assertEquals(1, sampler.goneDescriptors(), "counted as gone");
            assertEquals(0, sampler.failedSamples());
            assertEquals(0, sampler.reusedDescriptors());
        }
    }

    /**
     * The latest round is what every output lists: a sample taken after it (the next round under way)
     * is not shown until a round has judged it, and a list before the first round is empty.
     */
    @Test
    void theOutputsShowTheLatestRoundsSamplesNotANewerOne() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        ConnectionMonitor monitor = monitorOn(registry, new FindingsBoard(0, finding -> {}));
        List<Round> told = new ArrayList<>();
        monitor.addListener(told::add);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4()) {
            SocketChannel client = loopback.connectPair(0);
            SocketChannel server = loopback.accepted.get(0);
            TrackedConnection sender = tracked(registry, client, Role.CLIENT);
            TrackedConnection receiver = tracked(registry, server, Role.BROKER);
            // the receiving end carries a finding of the round's own (a round-level source): the ranking
            // counts it from the kept round's published findings, by the connection's two ends
            Finding onTheReceiver = new Finding(
                    RuleId.SMALL_RECEIVE_BUFFER,
                    Severity.CRITICAL,
                    receiver.identity(),
                    List.of(),
                    new Remedy(List.of(), "test"));
            monitor.addRoundFindingSource(connections -> List.of(onTheReceiver));
            new ConnectionSampler(registry).sample(); // sampled, not yet judged by a round
            assertEquals(List.of(), monitor.worstConnections(10), "nothing judged before the first round");

            monitor.round();
            Round round = monitor.lastRound();
            assertEquals(1, told.size());
            assertEquals(List.of(onTheReceiver), round.findings(), "the kept round's findings are the published ones");
            assertTrue(round.connections() == told.get(0).connections(), "kept as told");
            assertEquals(2, told.get(0).facts().size(), "the listeners' facts, one a connection");
            assertTrue(round.facts().isEmpty(), "the facts are the listeners' alone");
            LoopbackConnections.transfer(client, server, 1 << 20);
            new ConnectionSampler(registry).sample(); // samples the round did not judge
            long roundAcked = round.connections().stream()
                    .filter(judged -> judged.connection() == sender)
                    .findFirst()
                    .orElseThrow()
                    .sample()
                    .bytesAcked()
                    .getAsLong();
            assertTrue(
                    SampledConnections.latest(sender).bytesAcked().getAsLong() >= roundAcked + (1 << 20),
                    "the newer sample has moved");
            List<JudgedConnection> shown = monitor.worstConnections(10);
            assertEquals(2, shown.size());
            assertTrue(shown.get(0).connection() == receiver, "ranked by the round's findings: " + shown);
            for (ConnectionRanking.Ranked ranked : ConnectionRanking.rank(monitor.lastRound(), 10)) {
                boolean onReceiver = ranked.connection == receiver;
                assertEquals(onReceiver ? 1 : 0, ranked.findings, "findings counted on " + ranked.connection.fd());
                assertEquals(onReceiver ? Severity.CRITICAL.ordinal() : -1, ranked.worstSeverity);
            }
            List<String> objects = ConnectionJson.objects(shown);
            for (int i = 0; i < shown.size(); i++) {
                JudgedConnection judged = shown.get(i);
                String object = objects.get(i);
                assertTrue(round.connections().contains(judged), "a connection of the latest round");
                assertFalse(
                        SampledConnections.latest(judged.connection()) == judged.sample(),
                        "the newer sample is the sampler's, not the outputs'");
                assertTrue(
                        hasField(
                                object,
                                "bytesAcked",
                                judged.sample().bytesAcked().getAsLong()),
                        "the round's byte count: " + object);
                long ceiling = judged.windowCeilingBytes().orElseThrow();
                assertTrue(hasField(object, "windowCeilingBytes", ceiling), "its ceiling: " + object);
            }

            monitor.round();
            JudgedConnection next = monitor.worstConnections(10).get(0);
            assertTrue(monitor.lastRound().connections().contains(next), "the next round's");
            assertFalse(round.connections().contains(next), "not the round before's");
        }
    }

    /** The field with exactly this value (not a longer number that begins with it). */
    private static boolean hasField(String object, String name, long value) {
        return Pattern.compile("\"" + name + "\":" + value + "[,}]")
                .matcher(object)
                .find();
    }

    @Test
    void aSenderBehindASlowReaderIsFoundReceiveWindowLimited() throws Exception {
        List<Finding> findings = slowReaderRound(true);
        Finding finding = findings.stream()
                .filter(f -> f.rule() == RuleId.RECEIVE_WINDOW_LIMITED)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no receive-window-limited in " + findings));
        assertEquals("consumer-slow-1", finding.connection().clientId().orElseThrow());
        // on loopback even its tiny window moves the target: the reader is the limit, which no setting moves
        assertEquals(Severity.WARN, finding.severity(), finding.toString());
        assertEquals(List.of(), finding.remedy().settings(), finding.toString());
        assertTrue(finding.evidence("widestPeerWindow").isPresent(), finding.toString());
    }

    /**
     * The facts carry the peer's window scale, not this end's: the reader's 4 KiB buffer, set on the
     * listener before its accept, fixed the scale its kernel chose at the handshake below the one
     * the autotuned sender chose for itself. And the widest window of the rounds before this one:
     * where the slow reader's window shrinks, that reads the same as one that counts this round's too,
     * so TrackedConnectionTest holds that difference.
     */
    @Test
    void theFactsCarryThePeersWindowScaleAndTheWidestWindowBefore() throws Exception {
        List<Round> seen = new ArrayList<>();
        slowReaderRound(true, seen);
        ConnectionFacts first = seen.get(0).facts().get(0);
        ConnectionFacts second = seen.get(1).facts().get(0);
        assertTrue(
                second.peerWindowScale().orElseThrow() < second.rcvWindowScale(),
                "peer scale " + second.peerWindowScale() + ", own " + second.rcvWindowScale());
        assertEquals(
                (double) second.sndWindowBytes().orElseThrow()
                        / first.sndWindowBytes().orElseThrow(),
                second.peerWindowGrowth().orElseThrow(),
                1e-9,
                "against the first round's window: " + first.sndWindowBytes() + " then " + second.sndWindowBytes());
        // and the samples in a row whose window was narrower than the flow through it, as the connection counted them
        int expected = narrowerThanTheFlow(second) ? (narrowerThanTheFlow(first) ? 2 : 1) : 0;
        assertEquals(OptionalInt.of(expected), second.samplesNarrowerThanTheFlow(), second.toString());
    }

    private static boolean narrowerThanTheFlow(ConnectionFacts facts) {
        return facts.interval()
                .filter(interval -> facts.sndWindowBytes().orElseThrow()
                        < interval.sendRateBytesPerSecond() * facts.rttMicros() / 1e6)
                .isPresent();
    }

    @Test
    void aConnectionOfUnknownOwnerRaisesOnlyItsPathsSummary() throws Exception {
        List<Finding> findings = slowReaderRound(false);
        assertEquals(1, findings.size(), findings.toString());
        Finding summary = findings.get(0);
        assertEquals(RuleId.UNPLACED_SOCKETS, summary.rule());
        assertEquals(Severity.INFO, summary.severity());
        assertTrue(summary.connection().clientId().isEmpty());
        assertTrue(summary.remedy().settings().isEmpty(), "no client key for a socket nobody owns");
        assertTrue(
                summary.evidence("wouldRaise").get().value().toString().contains("receive-window-limited"),
                summary.toString());
        assertEquals(1, summary.evidence("receive-window-limited").get().value(), "sockets that would raise it");
    }

    /** A finding source that fails (a library without one of its calls) costs its own findings, not the round's. */
    @Test
    void aFailingFindingSourceLosesOnlyItsOwnFindings() {
        FindingsBoard board = new FindingsBoard(0, finding -> {});
        ConnectionMonitor monitor = monitorOn(new ConnectionRegistry(10), board);
        Finding kept = new Finding(
                RuleId.SYN_COOKIES,
                Severity.WARN,
                ConnectionIdentity.of(Role.BROKER, null, null),
                List.of(),
                new Remedy(List.of(), "kept"));
        monitor.addFindingSource(() -> {
            throw new UnsatisfiedLinkError("socketDrops");
        });
        monitor.addFindingSource(() -> List.of(kept));
        UnsatisfiedLinkError reported = assertThrows(UnsatisfiedLinkError.class, monitor::round);
        assertEquals("socketDrops", reported.getMessage());
        assertEquals(List.of(kept), board.current(), "the other source's finding was published");
    }

    /**
     * A broker-side socket whose reader takes 1 KiB every 2 ms, sampled twice; named by a namer once it
     * has sent data when {@code named}. The second round's findings.
     */
    private static List<Finding> slowReaderRound(boolean named) throws Exception {
        return slowReaderRound(named, new ArrayList<>());
    }

    /** The slow reader's rounds, each as the monitor told its listeners, kept in {@code seen}. */
    private static List<Finding> slowReaderRound(boolean named, List<Round> seen) throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        List<List<Finding>> rounds = new ArrayList<>();
        FindingsBoard board = new FindingsBoard(0, finding -> {});
        ConnectionMonitor monitor = monitorOn(registry, board);
        monitor.addListener(round -> rounds.add(round.findings()));
        monitor.addListener(seen::add);
        try (LoopbackConnections loopback = new LoopbackConnections(InetAddress.getLoopbackAddress(), 8)) {
            loopback.listener.setOption(StandardSocketOptions.SO_RCVBUF, 4096); // the reader's window stays tiny
            SocketChannel broker = loopback.connectPair(0);
            SocketChannel consumer = loopback.accepted.get(0);
            registry.track(
                    TcpSockets.fileDescriptor(broker),
                    0,
                    ConnectionIdentity.of(Role.BROKER, (InetSocketAddress) broker.getLocalAddress(), (InetSocketAddress)
                            broker.getRemoteAddress()));
            // named from the sample itself once it has sent data, before the rules of the same round run
            monitor.addNamer(sampled -> sampled.forEach(connection -> {
                if (named
                        && SampledConnections.latest(connection).bytesAcked().orElse(0)
                                > 1) { // the SYN counts as one byte
                    connection.updateIdentity(
                            unnamed -> unnamed.withClientId("consumer-slow-1").ownerKnownBy(OwnerKnownBy.HOOKS));
                }
            }));
            monitor.round();
            assertTrue(
                    registry.connections().get(0).identity().clientId().isEmpty(), "nothing sent yet, nothing named");
            broker.configureBlocking(false);
            ByteBuffer out = ByteBuffer.allocate(1 << 16);
            ByteBuffer in = ByteBuffer.allocate(1024);
            long end = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < end) {
                out.clear();
                broker.write(out);
                in.clear();
                consumer.read(in); // 1 KiB every 2 ms: the consumer, not the network, is the limit
                Thread.sleep(2);
            }
            monitor.round();
            IntervalStats interval =
                    monitor.lastRound().connections().get(0).sample().interval().get();
            assertTrue(
                    interval.rwndLimitedRatio() > 0.5,
                    "rwnd-limited " + interval.rwndLimitedRatio() + " busy " + interval.busyRatio());
            return rounds.get(1);
        }
    }

    @Test
    void jitterSpreadsTheIntervalWithinItsShare() {
        assertEquals(9_000, SamplingLoop.nextDelayNanos(10_000, 0.1, 0.0));
        assertEquals(10_000, SamplingLoop.nextDelayNanos(10_000, 0.1, 0.5));
        assertEquals(10_999, SamplingLoop.nextDelayNanos(10_000, 0.1, 0.9999), 1);
        assertEquals(10_000, SamplingLoop.nextDelayNanos(10_000, 0, 0.9));
    }

    @Test
    void aFailingRoundIsReportedOnceAndTheLoopGoesOn() throws Exception {
        List<String> warnings = new ArrayList<>();
        int[] rounds = {0};
        TcpsightConfig fast = TcpsightConfig.from(Map.of("tcpsight.sample.interval.ms", "100"));
        try (SamplingLoop loop = new SamplingLoop(
                        "test-loop",
                        fast,
                        () -> {
                            rounds[0]++;
                            throw new IllegalStateException("boom");
                        },
                        warnings::add)
                .start()) {
            Thread.sleep(600);
        }
        assertTrue(rounds[0] >= 3, "rounds " + rounds[0]);
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("boom"));
    }

    @Test
    void theCensusTrackerFollowsOpenAndClose() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(100);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4()) {
            int port = loopback.port();
            CensusTracker tracker = new CensusTracker(
                    registry, socket -> socket.remote().getPort() == port, socket -> CensusTracker.clientIdentity(
                                    socket, "consumer-g-1")
                            .ownerKnownBy(OwnerKnownBy.SOLE_CLIENT));
            SocketChannel first = loopback.connectPair(0);
            SocketChannel second = loopback.connectPair(0);
            tracker.refresh();
            assertEquals(2, registry.size(), "only the client ends: their peer is the listener's port");
            assertEquals(
                    "consumer-g-1",
                    registry.get(TcpSockets.fileDescriptor(first))
                            .get()
                            .identity()
                            .clientId()
                            .orElseThrow());
            int gone = TcpSockets.fileDescriptor(second);
            second.close();
            tracker.refresh();
            assertFalse(registry.get(gone).isPresent());
            assertEquals(1, registry.size());
        }
    }
}
