package io.tcpsight.internal.diagnose.coverage;

import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What sockets of unknown owner would have raised, said once per broker path and never as a
 * warning of its own: a finding names a client only when its owner is certain (under TLS a
 * Connect worker's 31 sockets to one broker cannot be told apart, and a guess named 15 of 16
 * wrongly). One round's collector: add every judged connection, then take the summaries, given the
 * round's connections again to count each summarised path's sockets.
 */
public final class UnplacedSockets {
    private final Map<List<Object>, Path> paths = new LinkedHashMap<>();

    /**
     * One judged connection and the findings the rules gave it: only an unplaced one's warnings are kept.
     * A connection whose owner is known, or that has no finding, need not be added: a broker holds tens of
     * thousands, and a path is summarised only where an unplaced socket would warn.
     */
    public void add(ConnectionIdentity connection, List<Finding> findings) {
        if (connection.ownerKnownBy().known() || !warns(findings)) {
            return;
        }
        Path path = paths.computeIfAbsent(key(connection), key -> new Path(connection));
        path.limited++;
        for (Finding finding : findings) {
            if (finding.severity() == Severity.INFO) {
                continue;
            }
            path.rules.merge(finding.rule().id() + " (" + finding.severity().label() + ")", 1, Integer::sum);
            path.socketsByRule.merge(finding.rule().id(), 1, Integer::sum);
            finding.evidence("window").ifPresent(window -> {
                if (window.value() instanceof Number) {
                    long bytes = ((Number) window.value()).longValue();
                    path.smallestWindow = path.smallestWindow < 0 ? bytes : Math.min(path.smallestWindow, bytes);
                }
            });
        }
    }

    private static boolean warns(List<Finding> findings) {
        for (Finding finding : findings) {
            if (finding.severity() != Severity.INFO) {
                return true;
            }
        }
        return false;
    }

    /**
     * One info finding per path where an unplaced socket would have raised a warning or worse, with the
     * path's sockets counted among {@code connections} (every connection added, placed or not).
     */
    public List<Finding> summaries(List<ConnectionIdentity> connections) {
        List<Finding> findings = new ArrayList<>();
        if (paths.isEmpty()) {
            return findings;
        }
        for (ConnectionIdentity connection : connections) {
            Path path = paths.get(key(connection));
            if (path != null) {
                path.sockets++;
                if (!connection.ownerKnownBy().known()) {
                    path.unplaced++;
                }
            }
        }
        for (Path path : paths.values()) {
            findings.add(path.summary());
        }
        return findings;
    }

    /** Client sockets by the broker they reach; broker-side ones by the listener's port they came in on. */
    private static List<Object> key(ConnectionIdentity connection) {
        if (connection.role() == Role.BROKER) {
            InetSocketAddress local = connection.local().orElse(null);
            return Arrays.asList(Role.BROKER, local == null ? null : local.getPort());
        }
        return Arrays.asList(connection.role(), connection.remote().orElse(null));
    }

    private static final class Path {
        final ConnectionIdentity at;
        int sockets;
        int unplaced;
        int limited;
        long smallestWindow = -1;
        final Map<String, Integer> rules = new TreeMap<>();
        /** Sockets that would raise each rule, by rule id: a count an alert or a test can read. */
        final Map<String, Integer> socketsByRule = new TreeMap<>();

        Path(ConnectionIdentity connection) {
            ConnectionIdentity path = ConnectionIdentity.of(
                            connection.role(),
                            connection.role() == Role.BROKER
                                    ? connection.local().orElse(null)
                                    : null,
                            connection.role() == Role.BROKER
                                    ? null
                                    : connection.remote().orElse(null))
                    .withListener(connection.listener().orElse(null));
            this.at = connection.role() == Role.BROKER
                    ? path
                    : path.withNodeId(connection.nodeId().orElse(null));
        }

        Finding summary() {
            StringBuilder rulesSeen = new StringBuilder();
            rules.forEach((rule, count) -> rulesSeen
                    .append(rulesSeen.length() == 0 ? "" : ", ")
                    .append(rule)
                    .append(" on ")
                    .append(count));
            List<Evidence> evidence = new ArrayList<>();
            evidence.add(new Evidence("unplacedSockets", unplaced, "count"));
            evidence.add(new Evidence("sockets", sockets, "count"));
            evidence.add(new Evidence("limitedSockets", limited, "count"));
            if (smallestWindow >= 0) {
                evidence.add(new Evidence("window", smallestWindow, "bytes"));
            }
            evidence.add(new Evidence("wouldRaise", rulesSeen.toString(), ""));
            socketsByRule.forEach((rule, count) -> evidence.add(new Evidence(rule, count, "sockets")));
            String why = String.format(
                    "%d of %d sockets %s%s would raise %s, but their owner is not known (TLS or SASL, or byte counts"
                            + " that do not agree exactly), so no finding names them; the findings that name a client"
                            + " come from its own settings against this path. For a name per socket, run the tcpsight"
                            + " agent in this JVM (-javaagent in KAFKA_OPTS)",
                    limited,
                    sockets,
                    at.role() == Role.BROKER ? "on this listener" : "to " + describePath(),
                    smallestWindow >= 0 ? " (the smallest holds a " + smallestWindow + "-byte window)" : "",
                    rulesSeen);
            return new Finding(RuleId.UNPLACED_SOCKETS, Severity.INFO, at, evidence, new Remedy(List.of(), why));
        }

        private String describePath() {
            String peer = at.remote().map(ConnectionIdentity::address).orElse(null);
            return at.nodeId().map(node -> "node " + node + " (" + peer + ")").orElse(String.valueOf(peer));
        }
    }
}
