package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.ConnectBurst;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.Link;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A burst of client startups against a broker whose acceptor stalls for 2 s (a long GC pause,
 * made with SIGSTOP), 20 ms away: with Kafka's default socket.listen.backlog.size (50) the accept
 * queue overflows, the kernel drops what does not fit (ListenOverflows), and those connects wait
 * for the acceptor; with the backlog the agent's finding recommends, the kernel completes every
 * handshake while the broker stalls. Handshake times side by side.
 */
class BacklogLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final int CONNECTS = 400;
    private static final Duration STALL = Duration.ofSeconds(2);

    @Test
    void theRecommendedBacklogHoldsABurstThatKafkasDefaultDropsIntoSynRetransmits() throws Exception {
        Burst before = burst("50", true);
        assertTrue(before.finding != null, "no listen-backlog-overflow finding after " + before.connects);
        String recommended = before.finding
                .setting("broker", "socket.listen.backlog.size")
                .orElseThrow(() -> new AssertionError("no backlog in " + before.finding));
        Burst after = burst(recommended, false);
        System.out.printf(
                "a burst of %d connects while the broker stalls %d s, 20 ms away:%n  socket.listen.backlog.size=50:"
                        + " %s%n  socket.listen.backlog.size=%s (tcpsight's): %s%nfinding: %s%n",
                CONNECTS, STALL.toSeconds(), before.connects, recommended, after.connects, before.finding);
        assertTrue(before.connects.overOneSecond() > 0, "the default dropped nothing: " + before.connects);
        assertEquals(0, after.connects.overOneSecond(), "after the fix: " + after.connects);
        assertTrue(after.finding == null, "the queue held: " + after.finding);
        assertEquals("critical", before.finding.severity());
        assertEquals(50, before.finding.number("effectiveBacklog"), before.finding.toString());
    }

    private record Burst(ConnectBurst connects, FindingView finding) {}

    /** The burst against a fresh broker with this backlog, and the agent's listener finding (awaited when expected). */
    private static Burst burst(String backlog, boolean expectFinding) throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder().link(Link.rtt(Duration.ofMillis(20))));
        KafkaBroker broker = KafkaBroker.inLab(lab)
                .agent("interval=1s")
                .overrides(Map.of("socket.listen.backlog.size", backlog))
                .start();
        String pid = Long.toString(broker.process().pid());
        new ProcessBuilder("kill", "-STOP", pid).start().waitFor();
        ConnectBurst connects;
        try {
            CompletableFuture<ConnectBurst> running = CompletableFuture.supplyAsync(() -> {
                try {
                    return ConnectBurst.run(lab.serverAddress(), 9092, CONNECTS, 20_000);
                } catch (IOException failed) {
                    throw new IllegalStateException(failed);
                }
            });
            Thread.sleep(STALL.toMillis());
            new ProcessBuilder("kill", "-CONT", pid).start().waitFor();
            connects = running.get();
        } finally {
            new ProcessBuilder("kill", "-CONT", pid).start().waitFor();
        }
        if (expectFinding) {
            return new Burst(
                    connects,
                    LabAwait.await("the agent's listener finding")
                            .atMost(Duration.ofSeconds(10))
                            .until(() -> backlogFinding(broker)));
        }
        Thread.sleep(3000); // three of the agent's rounds
        return new Burst(connects, backlogFinding(broker));
    }

    private static FindingView backlogFinding(KafkaBroker broker) throws Exception {
        List<FindingView> findings = FindingView.list(broker.agentGet("/findings"));
        // the counters are the namespace's, so every listener carries the finding: the client listener's
        return findings.stream()
                .filter(f -> f.is("listen-backlog-overflow")
                        && "PLAINTEXT".equals(f.connection().listener()))
                .findFirst()
                .orElse(null);
    }
}
