package io.tcpsight.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.ReporterFindings;
import io.tcpsight.lab.ReportingConsumer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A receive window below the bandwidth-delay product because of the host, not the application:
 * 100 ms, 200 Mbit/s, a consumer that already autotunes, on a client whose net.ipv4.tcp_rmem max is
 * 3 MB. Its reporter must name the sysctl alone, with a value and a ceiling the consumer does not
 * pass; the same consumer on a client with that value must pass the ceiling, side by side in one run.
 */
@ResourceLock(HostCpu.LOCK)
class HostLimitLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final String TARGET_MBIT = "200";

    @Test
    void aWindowHeldByTcpRmemIsNamedAsTheSysctlAndRaisingItMovesMore() throws Exception {
        // One lab and broker: the client's tcp_rmem is raised between the two consumers, as an operator applies
        // the finding; the second consumer's sockets open after it, and it reads the same records from the start.
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(100)).rateMbit(200))
                .clientSysctl("net.ipv4.tcp_rmem", "4096 131072 3145728")
                .serverSysctl("net.ipv4.tcp_wmem", "4096 16384 33554432")
                .serverSysctl("net.ipv4.tcp_slow_start_after_idle", 0));
        KafkaBroker broker =
                KafkaBroker.start(lab, Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"));
        LabTopics.create(broker, "far", 1);
        LabTopics.fillBesideBroker(
                lab, broker, "far", 40_000, 10_000); // 400 MB: more than 200 Mbit/s moves in each measured 12 s
        Consumed held = consume(lab, broker, "held-consumer");
        FindingView finding = held.findings.stream()
                .filter(f -> f.is("small-receive-buffer") && !f.severity().equals("info"))
                .reduce((first, last) -> last)
                .orElseThrow(() -> new AssertionError("no small-receive-buffer among " + held.findings));
        assertEquals(1, finding.remedy().settings().size(), "the sysctl alone: " + finding);
        String recommended = finding.setting("sysctl", "net.ipv4.tcp_rmem")
                .orElseThrow(() -> new AssertionError("no tcp_rmem in " + finding));
        lab.changeClientSysctl("net.ipv4.tcp_rmem", recommended);
        lab.forgetTcpMetrics(); // the raised consumer's connections start as the held one's did
        Consumed raised = consume(lab, broker, "raised-consumer");
        System.out.printf(
                "host limit at 100 ms, 200 Mbit/s, consumer autotuned: tcp_rmem max 3 MB %.1f Mbit/s, tcp_rmem \"%s\""
                        + " (tcpsight's value) %.1f Mbit/s, %.2fx%nfinding: %s%nafter: %s%n",
                held.mbit, recommended, raised.mbit, raised.mbit / held.mbit, finding, raised.findings);
        // the finding's ceiling is what the held consumer could move, and the raised one moves past it
        double ceiling = finding.number("ceilingRate");
        assertTrue(held.mbit <= 1.1 * ceiling, "held " + held.mbit + " Mbit/s against the ceiling " + ceiling);
        assertTrue(raised.mbit > ceiling, "raised " + raised.mbit + " Mbit/s against the ceiling " + ceiling);
        assertTrue(raised.mbit > held.mbit, "raised " + raised.mbit + " against held " + held.mbit);
        assertTrue(
                raised.findings.stream()
                        .noneMatch(f ->
                                f.is("small-receive-buffer") && !f.severity().equals("info")),
                "nothing left to raise: " + raised.findings);
    }

    /** What one consumer moved, and what its reporter found. */
    private record Consumed(double mbit, List<FindingView> findings) {}

    /** What one consumer, from the start of the topic, moved on the client as it is now, and what its reporter found. */
    private static Consumed consume(KernelLab lab, KafkaBroker broker, String clientId) throws Exception {
        LabProcess consumer = lab.javaInClient(
                clientId, ReportingConsumer.class, broker.bootstrapServers(), "far", clientId, "12", TARGET_MBIT);
        assertEquals(0, consumer.awaitExit(Duration.ofSeconds(90)), consumer.output());
        double mbit = -1;
        for (String line : consumer.output().split("\n")) {
            if (line.startsWith("rate ")) {
                mbit = Double.parseDouble(line.substring("rate ".length()).trim());
            }
        }
        assertTrue(mbit > 0, consumer.output());
        return new Consumed(mbit, ReporterFindings.printedIn(consumer.output()));
    }
}
