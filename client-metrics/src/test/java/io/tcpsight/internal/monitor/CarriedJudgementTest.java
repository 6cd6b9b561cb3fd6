package io.tcpsight.internal.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.FindingsBoard;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.export.ConnectionMeters;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.TcpSockets;
import io.tcpsight.testing.NativeLibrary;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A round that carries an idle connection unread keeps its last judgement, findings and all; a
 * connection named since, or a host whose TCP settings changed, is judged again. A real loopback
 * socket whose 4 KiB receive buffer is small against a 400 Gbit/s target with no floor on the path's
 * RTT, so that it has a finding while idle.
 */
class CarriedJudgementTest {
    private static final TcpsightConfig CONFIG =
            TcpsightConfig.from(Map.of("tcpsight.rule.min.rtt.ms", "0", "tcpsight.target.throughput.mbit", "400000"));

    private final AtomicReference<KernelFacts> kernel = new AtomicReference<>();
    /** How the tracked socket's owner is known: by the hooks (named) unless a test leaves it unplaced. */
    private OwnerKnownBy owner = OwnerKnownBy.HOOKS;

    @BeforeEach
    void nativeLibrary() {
        NativeLibrary.assumeLoaded();
        kernel.set(HostTcpFacts.current().kernelFacts());
    }

    @Test
    void theJudgementOfAnIdleConnectionStandsInEveryRoundThatCarriesIt() throws Exception {
        check(tracked -> {}, (before, after) -> {
            assertSame(before, after, "the judgement the round before made stands");
        });
    }

    @Test
    void aConnectionNamedSinceItsLastJudgementIsJudgedAgainThoughCarried() throws Exception {
        int[] names = {0};
        check(
                tracked -> tracked.updateIdentity(identity -> identity.withClientId("renamed-" + ++names[0])),
                (before, after) -> {
                    assertNotSame(before, after, "judged again under its new name");
                    assertEquals(
                            "renamed-" + names[0],
                            after.own().get(0).connection().clientId().orElseThrow());
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp_rmem", "tcp_wmem", "tcp_timestamps", "tcp_window_scaling"})
    void aChangeOfTheHostsTcpSettingsHasACarriedConnectionJudgedAgain(String setting) throws Exception {
        check(
                tracked -> kernel.set(changed(kernel.get(), setting)),
                (before, after) -> assertNotSame(before, after, "judged again by the host's new " + setting));
    }

    @Test
    void anUnplacedSocketCarriedUnreadStillCountsInItsPathsSummary() throws Exception {
        owner = OwnerKnownBy.UNPLACED;
        check(tracked -> {}, (before, after) -> assertSame(before, after));
        // check() holds every round to a finding; here each is the path's summary, the socket's own being withheld
    }

    /**
     * The meters record a connection where a round reads it: an idle one carried unread adds no observation
     * (recording its last sample again cost a big broker more than all else), and its read in its phase
     * adds one.
     */
    @Test
    void anIdleConnectionIsRecordedInTheRoundsThatReadItOnly() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        ConnectionMonitor monitor = monitorOn(registry);
        ConnectionMeters meters = new ConnectionMeters(monitor);
        SimpleMeterRegistry simple = new SimpleMeterRegistry();
        meters.bindTo(simple);
        List<Integer> readSources = new ArrayList<>(); // what a source of the read connections was given, each round
        monitor.addReadFindingSource(read -> {
            readSources.add(read.size());
            return List.of();
        });
        List<List<JudgedConnection>> readTold = new ArrayList<>(); // what the listeners were told was read
        monitor.addListener(round -> readTold.add(round.read()));
        try (ServerSocketChannel listener =
                        ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(listener.getLocalAddress());
                SocketChannel brokerEnd = listener.accept()) {
            TrackedConnection tracked = trackedBrokerEnd(registry, brokerEnd);
            int carried = 0;
            int readAfterCarried = 0;
            int renamedWhileCarried = 0;
            boolean carriedBefore = false;
            // carried from its fourth round; two phase reads at twelve rounds apart need 28, and some to spare
            for (int round = 0; round < 40; round++) {
                long before = rttObservations(simple);
                JudgedConnection judgedBefore = only(monitor.lastRound());
                boolean renamed = carriedBefore && round % 4 == 0;
                if (renamed) {
                    // judged again under its new name, though carried unread: still not a read
                    tracked.updateIdentity(identity -> identity.withClientId("renamed-" + System.nanoTime()));
                }
                monitor.round();
                String what = (tracked.carried() ? "carried unread" : "read") + " in round " + round;
                assertEquals(tracked.carried() ? 0 : 1, rttObservations(simple) - before, what);
                assertEquals(tracked.carried() ? 0 : 1, readSources.get(readSources.size() - 1), what);
                assertEquals(
                        tracked.carried() ? List.of() : List.of(only(monitor.lastRound())),
                        readTold.get(readTold.size() - 1),
                        what);
                if (renamed && tracked.carried()) {
                    assertNotSame(judgedBefore, only(monitor.lastRound()), "judged again when renamed, " + what);
                    renamedWhileCarried++;
                }
                carried += tracked.carried() ? 1 : 0;
                readAfterCarried += carriedBefore && !tracked.carried() ? 1 : 0;
                carriedBefore = tracked.carried();
            }
            assertTrue(carried >= 10, "rounds that carried it: " + carried);
            assertTrue(readAfterCarried >= 2, "reads in its phase after carried ones: " + readAfterCarried);
            assertTrue(renamedWhileCarried >= 2, "rounds that judged it anew unread: " + renamedWhileCarried);
        } finally {
            meters.unsubscribe();
        }
    }

    private static long rttObservations(MeterRegistry meters) {
        return meters.find("tcpsight.connection.rtt").timers().stream()
                .mapToLong(Timer::count)
                .sum();
    }

    private static KernelFacts copy(KernelFacts facts) {
        return new KernelFacts(
                facts.version().orElse(null),
                boxed(facts.tcpRmemMax()),
                boxed(facts.tcpWmemMax()),
                boxed(facts.timestamps()),
                boxed(facts.windowScaling()));
    }

    private static KernelFacts changed(KernelFacts facts, String setting) {
        Long rmem = boxed(facts.tcpRmemMax());
        Long wmem = boxed(facts.tcpWmemMax());
        Long timestamps = boxed(facts.timestamps());
        Long scaling = boxed(facts.windowScaling());
        switch (setting) {
            case "tcp_rmem":
                rmem = rmem == null ? 6_291_456L : rmem + 4096;
                break;
            case "tcp_wmem":
                wmem = wmem == null ? 4_194_304L : wmem + 4096;
                break;
            case "tcp_timestamps":
                timestamps = timestamps == null || timestamps == 0 ? 1L : 0L;
                break;
            default:
                scaling = scaling == null || scaling == 0 ? 1L : 0L;
        }
        return new KernelFacts(facts.version().orElse(null), rmem, wmem, timestamps, scaling);
    }

    private static Long boxed(OptionalLong value) {
        return value.isPresent() ? value.getAsLong() : null;
    }

    private interface Outcome {
        void check(JudgedConnection before, JudgedConnection after);
    }

    /**
     * Rounds until two in a row carried the connection; then {@code change}, and one more round: where it
     * carried the connection too, {@code outcome} compares its judgement with the one before (a round
     * that read it all the same, in its phase, starts the wait again).
     */
    private void check(Consumer<TrackedConnection> change, Outcome outcome) throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        ConnectionMonitor monitor = monitorOn(registry);
        // the receive buffer set before the listen, so the accepted socket's window is scaled to it
        try (ServerSocketChannel listener = ServerSocketChannel.open()
                        .setOption(StandardSocketOptions.SO_RCVBUF, 4096)
                        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(listener.getLocalAddress());
                SocketChannel brokerEnd = listener.accept()) {
            TrackedConnection tracked = trackedBrokerEnd(registry, brokerEnd);
            int carriedInARow = 0;
            for (int round = 0; round < 60; round++) {
                JudgedConnection before = only(monitor.lastRound());
                boolean changed = carriedInARow >= 2;
                if (changed) {
                    change.accept(tracked);
                }
                monitor.round();
                Round now = monitor.lastRound();
                assertFalse(now.findings().isEmpty(), "the idle connection's finding, round " + round);
                RuleId expected = owner.known() ? RuleId.SMALL_RECEIVE_BUFFER : RuleId.UNPLACED_SOCKETS;
                assertTrue(
                        now.findings().stream().anyMatch(f -> f.rule() == expected),
                        now.findings().toString());
                if (!owner.known()) {
                    // the path's one socket, counted whether this round read it or carried it
                    Finding summary = now.findings().stream()
                            .filter(f -> f.rule() == RuleId.UNPLACED_SOCKETS)
                            .findFirst()
                            .orElseThrow();
                    assertEquals(1, summary.evidence("sockets").orElseThrow().value(), summary + ", round " + round);
                    assertEquals(
                            1, summary.evidence("unplacedSockets").orElseThrow().value(), summary.toString());
                }
                if (!tracked.carried() && before != null) {
                    assertNotSame(before, only(now), "a round that read it judged it again, round " + round);
                }
                carriedInARow = tracked.carried() ? carriedInARow + 1 : 0;
                if (changed && tracked.carried()) {
                    outcome.check(before, only(now));
                    if (owner.known()) {
                        assertEquals(only(now).own(), connectionFindings(now), "its findings are the round's");
                    }
                    return;
                }
            }
            throw new AssertionError("never carried twice and then once more");
        }
    }

    /** A monitor of the registry's connections under the host's facts as the test sets them. */
    private ConnectionMonitor monitorOn(ConnectionRegistry registry) {
        // a fresh object each round, as the runtime builds one with the round's host counters
        return new ConnectionMonitor(
                registry,
                CONFIG,
                connection -> KafkaSettings.unknown(),
                () -> copy(kernel.get()),
                new FindingsBoard(0, f -> {}));
    }

    /** The broker's end tracked as the agent tracks it: every request on it told, its owner as the test says. */
    private TrackedConnection trackedBrokerEnd(ConnectionRegistry registry, SocketChannel brokerEnd) throws Exception {
        TrackedConnection tracked = registry.track(
                        TcpSockets.fileDescriptor(brokerEnd),
                        0,
                        ConnectionMonitorTest.identity(brokerEnd, Role.BROKER, "idle")
                                .ownerKnownBy(owner))
                .orElseThrow();
        tracked.requestsTold();
        return tracked;
    }

    private static JudgedConnection only(Round round) {
        List<JudgedConnection> connections = round.connections();
        return connections.isEmpty() ? null : connections.get(0);
    }

    private static List<Finding> connectionFindings(Round round) {
        return round.findings().stream()
                .filter(f -> f.connection().clientId().isPresent())
                .collect(Collectors.toList());
    }
}
