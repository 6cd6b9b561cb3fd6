package io.tcpsight.agent;

import io.tcpsight.lab.ConnectionView;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * What the broker agent said of a zoo of clients, against what each should get: per client the
 * warn/critical findings (rule and first setting), the info ones, how the agent saw it, and
 * precision and recall over all. A client is known by a key taken from how the agent saw the
 * connection (its client.id, or its principal where clients share an id).
 */
final class ZooScore {
    /** What each client is, the warn/critical finding it must get ("-" for none), and others naming the same limit. */
    private final Map<String, String[]> expected;

    private final Function<FindingView.Peer, String> key;
    private final Map<String, Map<String, FindingView>> warnings = new TreeMap<>(); // client -> rule -> last seen
    private final Map<String, Map<String, FindingView>> infos = new TreeMap<>();
    private final Map<String, FindingView.Peer> seenAs = new TreeMap<>();
    private final Map<String, Set<String>> flows = new TreeMap<>(); // client -> flow of each of its connections
    private final List<String> wrong = new ArrayList<>();

    /**
     * The broker a zoo runs against: SASL/PLAIN with each user (password USER-secret), the agent at a
     * 50 Mbit/s target, and the broker's own buffers autotuned, so that each client's settings alone
     * decide whether it is limited. Kafka's default 1 MiB a partition is more than the path's BDP at
     * that target, so no consumer is judged by its fetch sizes alone; a default consumer reading one
     * partition back to back moved 31 Mbit/s (its window grows only as far as a 1 MiB response
     * takes it), and the agent may say so from its flow, which is right too.
     */
    static KafkaBroker broker(KernelLab lab, Collection<String> users) throws Exception {
        Map<String, String> passwords = new HashMap<>();
        users.forEach(user -> passwords.put(user, user + "-secret"));
        return KafkaBroker.inLab(lab)
                .saslPlain("admin", "admin-secret", passwords)
                .agent("interval=2s,target.throughput.mbit=50")
                .overrides(Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"))
                .start();
    }

    ZooScore(Map<String, String[]> expected, Function<FindingView.Peer, String> key) {
        this.expected = expected;
        this.key = key;
    }

    /** One look at the agent: its findings and its connections now. */
    void observe(KafkaBroker broker) throws Exception {
        for (FindingView finding : FindingView.list(broker.agentGet("/findings"))) {
            record(finding);
        }
        for (ConnectionView connection : ConnectionView.list(broker.agentGet("/connections?top=200"))) {
            String client = key.apply(connection.connection());
            if (client != null && expected.containsKey(client)) {
                seenAs.put(client, connection.connection());
                flows.computeIfAbsent(client, any -> new TreeSet<>())
                        .add(String.valueOf(connection.connection().flow()));
            }
        }
    }

    void record(FindingView finding) {
        String client = key.apply(finding.connection());
        if (client == null || !expected.containsKey(client)) {
            return;
        }
        Map<String, Map<String, FindingView>> into = finding.severity().equals("info") ? infos : warnings;
        into.computeIfAbsent(client, any -> new TreeMap<>()).put(finding.rule(), finding);
    }

    /** Whether every client that must get a warn/critical finding has got it. */
    boolean allExpectedSeen() {
        for (Map.Entry<String, String[]> client : expected.entrySet()) {
            String wanted = client.getValue()[1];
            if (!wanted.equals("-")
                    && warnings.getOrDefault(client.getKey(), Map.of()).values().stream()
                            .noneMatch(finding -> matches(wanted, brief(finding)))) {
                return false;
            }
        }
        return true;
    }

    FindingView.Peer seenAs(String client) {
        return seenAs.get(client);
    }

    Map<String, Set<String>> flows() {
        return flows;
    }

    /** The table (printed under the title, with precision and recall); the wrong findings are then {@link #wrong()}. */
    String score(String title) {
        StringBuilder table = new StringBuilder(
                "| client | library (KIP-511) | principal | expected warn/critical | got warn/critical | info |\n"
                        + "|---|---|---|---|---|---|\n");
        int truePositives = 0;
        int falsePositives = 0;
        int falseNegatives = 0;
        wrong.clear();
        for (Map.Entry<String, String[]> client : expected.entrySet()) {
            String id = client.getKey();
            String wanted = client.getValue()[1];
            Set<String> got = new TreeSet<>();
            Map<String, FindingView> gotFindings = new TreeMap<>();
            warnings.getOrDefault(id, Map.of()).values().forEach(finding -> {
                got.add(brief(finding));
                gotFindings.put(brief(finding), finding);
            });
            Set<String> info = new TreeSet<>();
            infos.getOrDefault(id, Map.of()).values().forEach(finding -> info.add(brief(finding)));
            FindingView.Peer peer = seenAs.get(id);
            table.append("| ")
                    .append(id)
                    .append(" (")
                    .append(client.getValue()[0])
                    .append(") | ")
                    .append(peer == null ? "not seen" : peer.clientSoftware())
                    .append(" | ")
                    .append(peer == null ? "not seen" : peer.principal())
                    .append(" | ")
                    .append(wanted)
                    .append(" | ")
                    .append(got.isEmpty() ? "-" : String.join("; ", got))
                    .append(" | ")
                    .append(info.isEmpty() ? "-" : String.join("; ", info))
                    .append(" |\n");
            List<String> right = List.of(client.getValue()).subList(1, client.getValue().length);
            for (String finding : got) {
                if (right.stream().anyMatch(pattern -> matches(pattern, finding))) {
                    truePositives++;
                } else {
                    falsePositives++;
                    wrong.add(id + " got " + finding + " "
                            + gotFindings.get(finding).evidence());
                }
            }
            if (!wanted.equals("-") && got.stream().noneMatch(finding -> matches(wanted, finding))) {
                falseNegatives++;
                wrong.add(id + " missed " + wanted);
            }
        }
        String scored = title + ":\n" + table + "precision " + truePositives + "/" + (truePositives + falsePositives)
                + ", recall " + truePositives + "/" + (truePositives + falseNegatives);
        System.out.println(scored);
        return table.toString();
    }

    /** The findings the last {@link #score} found wrong: a client that got one it should not, or missed its own. */
    List<String> wrong() {
        return wrong;
    }

    /** "rule scope/library:key=value" of a finding's first setting. */
    private static String brief(FindingView finding) {
        return finding.rule() + " "
                + (finding.remedy().settings().isEmpty()
                        ? "(no setting)"
                        : finding.remedy().settings().get(0).brief());
    }

    /** A finding's brief against an expected one; a trailing "*" matches any value. */
    private static boolean matches(String expected, String finding) {
        return expected.endsWith("*")
                ? finding.startsWith(expected.substring(0, expected.length() - 1))
                : expected.equals(finding);
    }
}
