package io.tcpsight.monitor;

import io.tcpsight.diagnose.Finding;
import io.tcpsight.model.ConnectionIdentity;
import io.tcpsight.sampling.ConnectionSample;
import io.tcpsight.sampling.TrackedConnection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The one order of "the worst connections", for every output that lists some (the metrics' table,
 * JMX, the agent's and the plugin's /connections): connections with findings first (worst
 * severity, then most findings), then the most limited by the peer's window or the send buffer,
 * then the highest RTT. Each connection's sample is read once before sorting: the sampler
 * replaces samples meanwhile, and a sort whose keys change under it fails ("Comparison method
 * violates its general contract").
 */
public final class ConnectionRanking {
    private ConnectionRanking() {}

    /** A ranked connection with the sample and the findings it was ranked by. */
    public static final class Ranked {
        public final TrackedConnection connection;
        public final ConnectionSample sample;
        public final int findings;
        /** The worst finding's severity ordinal; -1 without findings. */
        public final int worstSeverity;

        final double limited;

        Ranked(TrackedConnection connection, ConnectionSample sample, int findings, int worstSeverity) {
            this.connection = connection;
            this.sample = sample;
            this.findings = findings;
            this.worstSeverity = worstSeverity;
            this.limited = sample.interval()
                    .map(interval -> Math.max(interval.rwndLimitedRatio(), interval.sndbufLimitedRatio()))
                    .orElse(0.0);
        }
    }

    /** The {@code limit} worst of these connections that have a sample, worst first. */
    public static List<Ranked> rank(List<TrackedConnection> connections, List<Finding> findings, int limit) {
        Map<String, int[]> byConnection = new HashMap<>(); // key -> {count, worst severity ordinal}
        for (Finding finding : findings) {
            ConnectionIdentity connection = finding.connection();
            if (connection != null && connection.remote() != null) {
                int[] counts = byConnection.computeIfAbsent(key(connection), k -> new int[] {0, -1});
                counts[0]++;
                counts[1] = Math.max(counts[1], finding.severity().ordinal());
            }
        }
        List<Ranked> ranked = new ArrayList<>(connections.size());
        for (TrackedConnection connection : connections) {
            connection.latest().ifPresent(sample -> {
                int[] counts = byConnection.getOrDefault(key(connection.identity()), new int[] {0, -1});
                ranked.add(new Ranked(connection, sample, counts[0], counts[1]));
            });
        }
        ranked.sort(Comparator.comparingInt((Ranked r) -> r.worstSeverity)
                .thenComparingInt(r -> r.findings)
                .thenComparingDouble(r -> r.limited)
                .thenComparingLong(r -> r.sample.rttMicros())
                .reversed());
        return ranked.size() > limit ? new ArrayList<>(ranked.subList(0, limit)) : ranked;
    }

    /** The connections alone, in the same order. */
    public static List<TrackedConnection> worst(
            List<TrackedConnection> connections, List<Finding> findings, int limit) {
        List<TrackedConnection> worst = new ArrayList<>();
        for (Ranked ranked : rank(connections, findings, limit)) {
            worst.add(ranked.connection);
        }
        return worst;
    }

    private static String key(ConnectionIdentity identity) {
        return ConnectionIdentity.address(identity.local()) + ">" + ConnectionIdentity.address(identity.remote());
    }
}
