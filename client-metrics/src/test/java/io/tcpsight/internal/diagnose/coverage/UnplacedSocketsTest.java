package io.tcpsight.internal.diagnose.coverage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One round's summary per path: a path is said only where an unplaced socket would warn, and its counts
 * are of every socket on it (placed or not), though a placed socket is only counted, never kept.
 */
class UnplacedSocketsTest {
    private static final InetSocketAddress BROKER_A = new InetSocketAddress("10.0.0.1", 9092);
    private static final InetSocketAddress BROKER_B = new InetSocketAddress("10.0.0.2", 9092);

    @Test
    void aPathIsSaidOnlyWhereAnUnplacedSocketWarnsAndCountsEverySocketOnIt() {
        UnplacedSockets unplaced = new UnplacedSockets();
        List<ConnectionIdentity> round = new ArrayList<>();
        // broker A: one placed socket that warns, two unplaced (one warns with a 65,536-byte window, one only informs)
        add(unplaced, round, socket(BROKER_A, 40001, OwnerKnownBy.HOOKS), warn(RuleId.RECEIVE_WINDOW_LIMITED, 1_000));
        add(
                unplaced,
                round,
                socket(BROKER_A, 40002, OwnerKnownBy.UNPLACED),
                warn(RuleId.RECEIVE_WINDOW_LIMITED, 65_536));
        add(unplaced, round, socket(BROKER_A, 40003, OwnerKnownBy.UNPLACED), info());
        add(unplaced, round, socket(BROKER_A, 40004, OwnerKnownBy.BYTE_COUNTS), List.of());
        // broker B: an unplaced socket with nothing to say, beside a placed one: no summary
        add(unplaced, round, socket(BROKER_B, 40005, OwnerKnownBy.UNPLACED), info());
        add(unplaced, round, socket(BROKER_B, 40006, OwnerKnownBy.HOOKS), warn(RuleId.RECEIVE_WINDOW_LIMITED, 1_000));

        List<Finding> summaries = unplaced.summaries(round);

        assertEquals(1, summaries.size(), summaries.toString());
        Finding summary = summaries.get(0);
        assertEquals(RuleId.UNPLACED_SOCKETS, summary.rule());
        assertEquals(BROKER_A, summary.connection().remote().orElseThrow());
        assertEquals(2, value(summary, "unplacedSockets"), summary.toString());
        assertEquals(4, value(summary, "sockets"), summary.toString());
        assertEquals(1, value(summary, "limitedSockets"), summary.toString());
        assertEquals(65_536L, value(summary, "window"), summary.toString());
        assertEquals(1, value(summary, RuleId.RECEIVE_WINDOW_LIMITED.id()), summary.toString());
    }

    @Test
    void aRoundWithNoUnplacedWarningSaysNothing() {
        UnplacedSockets unplaced = new UnplacedSockets();
        List<ConnectionIdentity> round = new ArrayList<>();
        add(unplaced, round, socket(BROKER_A, 40001, OwnerKnownBy.HOOKS), warn(RuleId.RECEIVE_WINDOW_LIMITED, 1_000));
        add(unplaced, round, socket(BROKER_A, 40002, OwnerKnownBy.UNPLACED), info());

        assertEquals(List.of(), unplaced.summaries(round));
    }

    private static void add(
            UnplacedSockets unplaced, List<ConnectionIdentity> round, ConnectionIdentity socket, List<Finding> own) {
        unplaced.add(socket, own);
        round.add(socket);
    }

    private static ConnectionIdentity socket(InetSocketAddress broker, int localPort, OwnerKnownBy owner) {
        return ConnectionIdentity.of(Role.CLIENT, new InetSocketAddress("10.0.1.1", localPort), broker)
                .withNodeId(broker.equals(BROKER_A) ? "1" : "2")
                .ownerKnownBy(owner);
    }

    private static List<Finding> warn(RuleId rule, long window) {
        return List.of(new Finding(
                rule,
                Severity.WARN,
                ConnectionIdentity.of(Role.CLIENT, null, null),
                List.of(new Evidence("window", window, "bytes")),
                new Remedy(List.of(), "limited")));
    }

    private static List<Finding> info() {
        return List.of(new Finding(
                RuleId.FETCH_SIZE_BELOW_BDP,
                Severity.INFO,
                ConnectionIdentity.of(Role.CLIENT, null, null),
                List.of(),
                new Remedy(List.of(), "informs")));
    }

    private static Object value(Finding finding, String evidence) {
        return finding.evidence(evidence).orElseThrow().value();
    }
}
