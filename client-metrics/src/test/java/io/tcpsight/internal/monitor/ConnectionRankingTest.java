package io.tcpsight.internal.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.sampling.ConnectionSample;
import io.tcpsight.internal.sampling.SampledConnections;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The worst connections, kept by a bounded heap, are the head of the whole order, ties and all. */
class ConnectionRankingTest {
    @Test
    void theWorstFewAreTheHeadOfTheWholeOrderWithTiesInTheOrderTheyCameIn() {
        Random random = new Random(42);
        List<TrackedConnection> connections = new ArrayList<>();
        List<Finding> findings = new ArrayList<>();
        // what each connection was given, counted apart from the ranking: {count, worst severity}
        Map<TrackedConnection, int[]> given = new HashMap<>();
        for (int fd = 0; fd < 2_000; fd++) {
            // few distinct values, so that many connections tie on every key
            long busy = 1_000_000;
            TrackedConnection connection =
                    SampledConnections.sampled(fd, 1_000 * random.nextInt(5), busy, busy / 4 * random.nextInt(3));
            connections.add(connection);
            int count = random.nextInt(10) < 8 ? 0 : 1 + random.nextInt(2);
            for (int i = 0; i < count; i++) {
                Severity severity = Severity.values()[random.nextInt(Severity.values().length)];
                int[] counts = given.computeIfAbsent(connection, any -> new int[] {0, -1});
                counts[0]++;
                counts[1] = Math.max(counts[1], severity.ordinal());
                findings.add(new Finding(
                        RuleId.SMALL_RECEIVE_BUFFER,
                        severity,
                        connection.identity(),
                        List.of(),
                        new Remedy(List.of(), "test")));
            }
        }
        List<JudgedConnection> judged = new ArrayList<>();
        for (TrackedConnection connection : connections) {
            judged.add(new JudgedConnection(
                    connection,
                    SampledConnections.latest(connection),
                    Optional.empty(),
                    List.of(),
                    connection.identity()));
        }
        Round round = new Round(judged, findings, List.of());
        List<ConnectionRanking.Ranked> all = ConnectionRanking.rank(round, Integer.MAX_VALUE);
        assertEquals(connections.size(), all.size());
        for (ConnectionRanking.Ranked ranked : all) {
            int[] counts = given.getOrDefault(ranked.connection, new int[] {0, -1});
            assertEquals(counts[0], ranked.findings, "findings of fd " + ranked.connection.fd());
            assertEquals(counts[1], ranked.worstSeverity, "worst severity of fd " + ranked.connection.fd());
        }
        for (int i = 1; i < all.size(); i++) {
            ConnectionRanking.Ranked before = all.get(i - 1);
            ConnectionRanking.Ranked after = all.get(i);
            assertEquals(
                    -1,
                    Integer.signum(Comparator.<ConnectionRanking.Ranked>comparingInt(r -> -r.worstSeverity)
                            .thenComparingInt(r -> -r.findings)
                            .thenComparingDouble(r -> -limitedShare(r.sample))
                            .thenComparingLong(r -> -r.sample.rttMicros())
                            .thenComparingInt(r -> r.connection.fd()) // the order they came in
                            .compare(before, after)),
                    "worst first at " + i);
        }
        for (int limit : new int[] {1, 10, 50, 1_999, 2_000, 5_000}) {
            List<JudgedConnection> head = new ArrayList<>();
            all.subList(0, Math.min(limit, all.size())).forEach(ranked -> head.add(ranked.judged));
            assertEquals(head, ConnectionRanking.worst(round, limit), "the worst " + limit);
        }
    }

    /** The larger limited share of the sample's interval, computed here apart from what the ranking keeps. */
    private static double limitedShare(ConnectionSample sample) {
        return sample.interval()
                .map(interval -> Math.max(interval.rwndLimitedRatio(), interval.sndbufLimitedRatio()))
                .orElse(0.0);
    }
}
