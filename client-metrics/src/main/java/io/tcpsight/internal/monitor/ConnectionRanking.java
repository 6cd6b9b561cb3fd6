package io.tcpsight.internal.monitor;

import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.sampling.ConnectionSample;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * The one order of "the worst connections", for every output that lists some (the metrics' table,
 * JMX, the agent's and the plugin's /connections): connections with findings first (worst
 * severity, then most findings), then the most limited by the peer's window or the send buffer,
 * then the highest RTT. It ranks a round ({@link Round}): each connection by the sample the round
 * judged and the findings the round published on its two ends, so a list never shows a sample newer
 * than the findings beside it, and the sampler's next samples cannot change a key under the sort.
 */
public final class ConnectionRanking {
    private ConnectionRanking() {}

    /** A ranked connection with the sample and the findings it was ranked by. */
    public static final class Ranked {
        public final JudgedConnection judged;
        public final TrackedConnection connection;
        /** The round's sample. */
        public final ConnectionSample sample;

        public final int findings;
        /** The worst finding's severity ordinal; -1 without findings. */
        public final int worstSeverity;
        /** As the round judged it; empty when unknown. */
        public final Optional<Long> windowCeilingBytes;

        final float limited;
        final int rttMicros;
        final int order;

        Ranked(JudgedConnection judged, int[] findingCounts, int order) {
            this.judged = judged;
            this.connection = judged.connection();
            this.sample = judged.sample();
            this.windowCeilingBytes = judged.windowCeilingBytes();
            this.findings = findingCounts[0];
            this.worstSeverity = findingCounts[1];
            this.order = order;
            this.limited = judged.limited;
            this.rttMicros = judged.rttMicros;
        }
    }

    /**
     * Worst first: findings (worst severity, then how many), then the most limited, then the highest
     * RTT; among equals, the order they came in, so the list is the same every time.
     */
    private static final Comparator<Ranked> WORST_FIRST = ConnectionRanking::worstFirst;

    private static int worstFirst(Ranked a, Ranked b) {
        int order = byKeys(a.worstSeverity, a.findings, a.limited, a.rttMicros, b);
        return order != 0 ? order : Integer.compare(a.order, b.order);
    }

    /** Negative where a connection of these keys ranks worse than {@code b}, 0 where they tie. */
    private static int byKeys(int worstSeverity, int findings, float limited, int rttMicros, Ranked b) {
        int order = Integer.compare(b.worstSeverity, worstSeverity);
        if (order == 0) {
            order = Integer.compare(b.findings, findings);
        }
        if (order == 0) {
            order = Float.compare(b.limited, limited);
        }
        if (order == 0) {
            order = Integer.compare(b.rttMicros, rttMicros);
        }
        return order;
    }

    /**
     * The {@code limit} worst connections of a round, worst first, each with the sample and the ceiling
     * the round judged: the one entry point. A bounded heap keeps the worst {@code limit} as the
     * connections go by, so a round at 15,000 connections sorts 50.
     */
    public static List<Ranked> rank(Round round, int limit) {
        Map<List<InetSocketAddress>, int[]> counts = findingCounts(round.findings());
        Worst worst = new Worst(limit);
        for (JudgedConnection judged : round.connections()) {
            worst.offer(judged, counts);
        }
        return worst.sorted();
    }

    /** The judged connections alone, in the same order: what /connections and JMX list. */
    public static List<JudgedConnection> worst(Round round, int limit) {
        List<JudgedConnection> worst = new ArrayList<>();
        for (Ranked ranked : rank(round, limit)) {
            worst.add(ranked.judged);
        }
        return worst;
    }

    /** Per connection (its two ends): {count, worst severity ordinal}. */
    private static Map<List<InetSocketAddress>, int[]> findingCounts(List<Finding> findings) {
        Map<List<InetSocketAddress>, int[]> byConnection = new HashMap<>();
        for (Finding finding : findings) {
            ConnectionIdentity connection = finding.connection();
            if (connection != null && connection.remote().isPresent()) {
                int[] counts = byConnection.computeIfAbsent(ends(connection), k -> new int[] {0, -1});
                counts[0]++;
                counts[1] = Math.max(counts[1], finding.severity().ordinal());
            }
        }
        return byConnection;
    }

    /** The worst {@code limit} kept as connections go by; the head is the least bad of those kept. */
    private static final class Worst {
        private static final int[] NONE = {0, -1};
        private final int limit;
        private final PriorityQueue<Ranked> kept;
        private int order;

        Worst(int limit) {
            this.limit = limit;
            this.kept = new PriorityQueue<>(Math.max(1, Math.min(limit, 1024) + 1), WORST_FIRST.reversed());
        }

        void offer(JudgedConnection judged, Map<List<InetSocketAddress>, int[]> counts) {
            if (limit <= 0) {
                return;
            }
            int[] found = counts.isEmpty()
                    ? NONE
                    : counts.getOrDefault(ends(judged.connection().identity()), NONE);
            int at = order++;
            if (kept.size() < limit) {
                kept.add(new Ranked(judged, found, at));
                return;
            }
            // Most connections of a big broker rank below the kept ones: they are compared by their keys and
            // left, with nothing made for them. A tie keeps the one that came first, as the full order does.
            if (byKeys(found[1], found[0], judged.limited, judged.rttMicros, kept.peek()) < 0) {
                kept.poll();
                kept.add(new Ranked(judged, found, at));
            }
        }

        List<Ranked> sorted() {
            List<Ranked> ranked = new ArrayList<>(kept);
            ranked.sort(WORST_FIRST);
            return ranked;
        }
    }

    /** A connection's two ends: what ties a finding to the connection it was raised for, whatever the names. */
    private static List<InetSocketAddress> ends(ConnectionIdentity identity) {
        return Arrays.asList(identity.local().orElse(null), identity.remote().orElse(null));
    }
}
