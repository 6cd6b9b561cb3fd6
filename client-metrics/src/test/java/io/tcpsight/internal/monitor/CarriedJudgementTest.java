package io.tcpsight.internal.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.FindingsBoard;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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

    @Test
    void aChangeOfTheHostsTcpSettingsHasACarriedConnectionJudgedAgain() throws Exception {
        check(
                tracked -> {
                    KernelFacts now = kernel.get();
                    kernel.set(new KernelFacts(
                            now.version().orElse(null),
                            now.tcpRmemMax().orElse(6_291_456) + 4096,
                            now.tcpWmemMax().isPresent() ? now.tcpWmemMax().getAsLong() : null,
                            now.timestamps().isPresent() ? now.timestamps().getAsLong() : null));
                },
                (before, after) -> assertNotSame(before, after, "judged again by the host's new tcp_rmem"));
    }

    private interface Outcome {
        void check(JudgedConnection before, JudgedConnection after);
    }

    /**
     * Rounds until two in a row carried the connection; then {@code change}, and one more round: where it
     * carried the connection too, {@code outcome} compares its judgement with the one before (a round
     * that read it all the same, its sixth, starts the wait again).
     */
    private void check(Consumer<TrackedConnection> change, Outcome outcome) throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        ConnectionMonitor monitor = new ConnectionMonitor(
                registry, CONFIG, connection -> KafkaSettings.unknown(), kernel::get, new FindingsBoard(0, f -> {}));
        // the receive buffer set before the listen, so the accepted socket's window is scaled to it
        try (ServerSocketChannel listener = ServerSocketChannel.open()
                        .setOption(StandardSocketOptions.SO_RCVBUF, 4096)
                        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(listener.getLocalAddress());
                SocketChannel brokerEnd = listener.accept()) {
            TrackedConnection tracked = registry.track(
                            TcpSockets.fileDescriptor(brokerEnd),
                            0,
                            ConnectionMonitorTest.identity(brokerEnd, Role.BROKER, "idle"))
                    .orElseThrow();
            tracked.requestsTold();
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
                assertTrue(
                        now.findings().stream().anyMatch(f -> f.rule() == RuleId.SMALL_RECEIVE_BUFFER),
                        now.findings().toString());
                carriedInARow = tracked.carried() ? carriedInARow + 1 : 0;
                if (changed && tracked.carried()) {
                    outcome.check(before, only(now));
                    assertEquals(only(now).own(), connectionFindings(now), "its findings are the round's");
                    return;
                }
            }
            throw new AssertionError("never carried twice and then once more");
        }
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
