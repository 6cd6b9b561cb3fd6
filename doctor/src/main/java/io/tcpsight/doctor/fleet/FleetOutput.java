package io.tcpsight.doctor.fleet;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** The fleet's report for people (text, ranked, one entry a few lines) and for machines (--json). */
final class FleetOutput {
    private static final ObjectMapper JSON = new ObjectMapper();

    private FleetOutput() {}

    static String text(FleetReport report) {
        StringBuilder text = new StringBuilder();
        List<FleetAnswer> answers = report.answers();
        long answered = answers.stream().filter(FleetAnswer::answered).count();
        long findings =
                answers.stream().mapToLong(answer -> answer.findings().size()).sum();
        text.append(String.format(
                Locale.ROOT,
                "tcpsight fleet: %d of %d sources answered (%s); %d findings%n",
                answered,
                answers.size(),
                answers.stream()
                        .filter(FleetAnswer::answered)
                        .map(answer -> answer.source().label())
                        .collect(Collectors.joining(", ")),
                findings));
        List<FleetAnswer> silent =
                answers.stream().filter(answer -> !answer.answered()).toList();
        if (!silent.isEmpty()) {
            text.append("\nNot answered (their connections are not in this report):\n");
            for (FleetAnswer answer : silent) {
                text.append("  ")
                        .append(answer.source().label())
                        .append(" at ")
                        .append(answer.source().findings())
                        .append(": ")
                        .append(answer.failure().orElse(""))
                        .append('\n');
            }
        }
        report.first().ifPresent(first -> text.append("\nThe change that fixes the most: ")
                .append(String.join(", ", first.who))
                .append(": ")
                .append(String.join("; ", first.changes.keySet()))
                .append(" (")
                .append(connections(first))
                .append(")\n"));
        section(
                text,
                "Clients to call, the change that fixes the most connections first",
                report.entries(FleetReport.Section.CLIENTS));
        section(text, "Brokers and Connect workers", report.entries(FleetReport.Section.SERVERS));
        section(text, "Hosts and paths (no client's setting)", report.entries(FleetReport.Section.HOSTS_AND_PATHS));
        if (report.entries().isEmpty() && answered > 0) {
            text.append("\nNothing to change on the connections of the sources that answered.\n");
        }
        return text.toString();
    }

    private static void section(StringBuilder text, String title, List<FleetReport.Entry> entries) {
        if (entries.isEmpty()) {
            return;
        }
        text.append('\n').append(title).append(":\n");
        int rank = 1;
        for (FleetReport.Entry entry : entries) {
            text.append(String.format(Locale.ROOT, "%3d. ", rank++))
                    .append(String.join(", ", entry.who))
                    .append(principal(entry))
                    .append(": ")
                    .append(connections(entry))
                    .append(" of ")
                    .append(String.join(", ", entry.concerns))
                    .append(gain(entry))
                    .append('\n');
            for (Map.Entry<String, Set<String>> change : entry.changes.entrySet()) {
                text.append("       set ").append(change.getKey());
                if (!change.getValue().isEmpty()) {
                    text.append(" (")
                            .append(String.join("; ", change.getValue()))
                            .append(')');
                }
                text.append('\n');
            }
            text.append("       rules: ")
                    .append(entry.rules.entrySet().stream()
                            .map(rule -> rule.getKey() + " (" + rule.getValue() + ")")
                            .collect(Collectors.joining(", ")))
                    .append('\n');
        }
    }

    /** The principal where an end saw it, on how many of its connections where not on all. */
    private static String principal(FleetReport.Entry entry) {
        if (entry.principal.isEmpty()) {
            return entry.section == FleetReport.Section.CLIENTS ? " (principal not known)" : "";
        }
        int seen = entry.principalSeenOn.size();
        return " (principal " + entry.principal.get()
                + (seen < entry.connections.size()
                        ? " on " + seen + " of its " + entry.connections.size() + " connections; the others' not known"
                        : "")
                + ")";
    }

    private static String connections(FleetReport.Entry entry) {
        int count = entry.rankedConnections();
        return count + (count == 1 ? " connection" : " connections");
    }

    private static String gain(FleetReport.Entry entry) {
        if (entry.connectionsWithGain() == 0) {
            return "";
        }
        return String.format(
                Locale.ROOT,
                "; once every remedy named for them is applied: %.1f -> %.1f Mbit/s (+%.1f%s)",
                entry.nowMbit(),
                entry.afterMbit(),
                entry.gainMbit(),
                entry.connectionsWithGain() < entry.connections.size()
                        ? ", " + entry.connectionsWithGain() + " of its connections said"
                        : "");
    }

    static String json(FleetReport report) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode sources = root.putArray("sources");
        for (FleetAnswer answer : report.answers()) {
            ObjectNode source = sources.addObject();
            source.put("source", answer.source().label());
            source.put("url", answer.source().findings().toString());
            source.put("answered", answer.answered());
            if (answer.answered()) {
                source.put("findings", answer.findings().size());
            } else {
                source.put("reason", answer.failure().orElse(""));
            }
        }
        entries(root.putArray("clients"), report.entries(FleetReport.Section.CLIENTS));
        entries(root.putArray("servers"), report.entries(FleetReport.Section.SERVERS));
        entries(root.putArray("hostsAndPaths"), report.entries(FleetReport.Section.HOSTS_AND_PATHS));
        return root.toPrettyString();
    }

    private static void entries(ArrayNode array, List<FleetReport.Entry> entries) {
        for (FleetReport.Entry entry : entries) {
            ObjectNode item = array.addObject();
            entry.who.forEach(item.putArray("who")::add);
            entry.principal.ifPresent(principal -> {
                item.put("principal", principal);
                item.put("principalSeenOnConnections", entry.principalSeenOn.size());
            });
            ArrayNode changes = item.putArray("changes");
            entry.changes.forEach((change, notes) -> {
                ObjectNode one = changes.addObject();
                one.put("change", change);
                notes.forEach(one.putArray("notes")::add);
            });
            ObjectNode rules = item.putObject("rules");
            entry.rules.forEach(rules::put);
            item.put("connections", entry.rankedConnections());
            entry.concerns.forEach(item.putArray("concerns")::add);
            if (entry.connectionsWithGain() > 0) {
                item.put("gainMbit", Math.round(entry.gainMbit() * 10) / 10.0);
                item.put("nowMbit", Math.round(entry.nowMbit() * 10) / 10.0);
                item.put("afterMbit", Math.round(entry.afterMbit() * 10) / 10.0);
                item.put("connectionsWithGain", entry.connectionsWithGain());
            }
        }
    }
}
