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
 * What the broker agent said of a zoo of clients, against what each must get: per client the
 * warn/critical findings (rule and first setting), the info ones, how the agent saw it, and
 * precision and recall over all. A client is known by a key taken from how the agent saw the
 * connection (its client.id, or its principal where clients share an id).
 *
 * <p>Precision and recall count required findings only: a warn/critical finding a client must not
 * get is a false positive, whatever it names. A limited client may also list tolerated findings, a
 * second name for the same limit that a measurement may or may not show; they are listed apart and
 * count for nothing. A client of its library's defaults has none: a rule that fired on every
 * consumer fails the zoo.
 */
final class ZooScore {
    /** What a client is, the warn/critical findings it must get (none: it must stay silent), and any tolerated. */
    record Expected(String what, List<String> required, List<String> tolerated) {
        static Expected silent(String what) {
            return new Expected(what, List.of(), List.of());
        }

        static Expected gets(String what, String... required) {
            return new Expected(what, List.of(required), List.of());
        }

        Expected tolerating(String... also) {
            return new Expected(what, required, List.of(also));
        }
    }

    private final Map<String, Expected> expected;

    /** The agent's target in the zoos (see {@link #broker}). */
    static final int TARGET_MBIT = 15;

    private final Function<FindingView.Peer, String> key;
    private final Map<String, Map<String, FindingView>> warnings = new TreeMap<>(); // client -> rule -> last seen
    private final Map<String, Map<String, FindingView>> infos = new TreeMap<>();
    private final Map<String, FindingView.Peer> seenAs = new TreeMap<>();
    private final Map<String, Set<String>> flows = new TreeMap<>(); // client -> flow of each of its connections
    private final List<String> wrong = new ArrayList<>();

    /**
     * The broker a zoo runs against: SASL/PLAIN with each user (password USER-secret), the agent at a
     * 15 Mbit/s target, and the broker's own buffers autotuned, so that each client's settings alone
     * decide whether it is limited. The target is where every answer is certain: a fetch of 1 MiB a
     * partition (every library's default but kafka-go's 1,000,000 bytes) takes a 100 ms round trip
     * plus 559 ms at the target, 12.7 Mbit/s at most, above the 80% (12 Mbit/s) at which
     * fetch-size-below-bdp speaks (kafka-go's 12.6), so a default consumer must stay silent whatever
     * its flow did; 64 KiB a fetch or a 64 KiB window caps a client at 5.2 Mbit/s or less, far below.
     */
    static KafkaBroker broker(KernelLab lab, Collection<String> users) throws Exception {
        Map<String, String> passwords = new HashMap<>();
        users.forEach(user -> passwords.put(user, user + "-secret"));
        return KafkaBroker.inLab(lab)
                .saslPlain("admin", "admin-secret", passwords)
                .agent("interval=2s,target.throughput.mbit=" + TARGET_MBIT)
                .overrides(Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"))
                .start();
    }

    ZooScore(Map<String, Expected> expected, Function<FindingView.Peer, String> key) {
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

    /** Whether every client has got every warn/critical finding it must get. */
    boolean allExpectedSeen() {
        for (Map.Entry<String, Expected> client : expected.entrySet()) {
            Map<String, FindingView> got = warnings.getOrDefault(client.getKey(), Map.of());
            for (String wanted : client.getValue().required()) {
                if (got.values().stream().noneMatch(finding -> matches(wanted, brief(finding)))) {
                    return false;
                }
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
                "| client | library (KIP-511) | principal | required warn/critical | got warn/critical | tolerated, got | info |\n"
                        + "|---|---|---|---|---|---|---|\n");
        int truePositives = 0;
        int falsePositives = 0;
        int falseNegatives = 0;
        List<String> toleratedGot = new ArrayList<>();
        wrong.clear();
        for (Map.Entry<String, Expected> client : expected.entrySet()) {
            String id = client.getKey();
            Expected wanted = client.getValue();
            Set<String> got = new TreeSet<>();
            Map<String, FindingView> gotFindings = new TreeMap<>();
            warnings.getOrDefault(id, Map.of()).values().forEach(finding -> {
                got.add(brief(finding));
                gotFindings.put(brief(finding), finding);
            });
            Set<String> tolerated = new TreeSet<>();
            Set<String> info = new TreeSet<>();
            infos.getOrDefault(id, Map.of()).values().forEach(finding -> info.add(brief(finding)));
            for (String finding : got) {
                if (wanted.required().stream().anyMatch(pattern -> matches(pattern, finding))) {
                    truePositives++;
                } else if (wanted.tolerated().stream().anyMatch(pattern -> matches(pattern, finding))) {
                    tolerated.add(finding);
                    toleratedGot.add(id + ": " + finding);
                } else {
                    falsePositives++;
                    wrong.add(id + " got " + finding + " "
                            + gotFindings.get(finding).evidence());
                }
            }
            for (String required : wanted.required()) {
                if (got.stream().noneMatch(finding -> matches(required, finding))) {
                    falseNegatives++;
                    wrong.add(id + " missed " + required);
                }
            }
            Set<String> counted = new TreeSet<>(got);
            counted.removeAll(tolerated);
            FindingView.Peer peer = seenAs.get(id);
            table.append("| ")
                    .append(id)
                    .append(" (")
                    .append(wanted.what())
                    .append(") | ")
                    .append(peer == null ? "not seen" : peer.clientSoftware())
                    .append(" | ")
                    .append(peer == null ? "not seen" : peer.principal())
                    .append(" | ")
                    .append(wanted.required().isEmpty() ? "-" : String.join("; ", wanted.required()))
                    .append(" | ")
                    .append(counted.isEmpty() ? "-" : String.join("; ", counted))
                    .append(" | ")
                    .append(tolerated.isEmpty() ? "-" : String.join("; ", tolerated))
                    .append(" | ")
                    .append(info.isEmpty() ? "-" : String.join("; ", info))
                    .append(" |\n");
        }
        String scored = title + ":\n" + table + "precision " + truePositives + "/" + (truePositives + falsePositives)
                + ", recall " + truePositives + "/" + (truePositives + falseNegatives) + " (required findings only); "
                + "tolerated extras got: " + (toleratedGot.isEmpty() ? "none" : toleratedGot);
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
