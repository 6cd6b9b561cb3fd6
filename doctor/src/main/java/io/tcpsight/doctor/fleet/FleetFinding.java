package io.tcpsight.doctor.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * One finding as an agent's /findings or a Connect worker's /tcpsight/findings serves it (the
 * shared finding format, docs/broker-agent.md): what the fleet's report needs of it, read with
 * Jackson. Fields the answer leaves out (a redacted agent's addresses and principals) are empty.
 */
final class FleetFinding {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One change a finding's remedy asks for. */
    static final class Change {
        final String scope;
        final Optional<String> library;
        final Optional<String> key;
        final Optional<String> lookFor;
        final String value;
        final Optional<String> note;

        Change(String scope, String library, String key, String lookFor, String value, String note) {
            this.scope = scope;
            this.library = Optional.ofNullable(library);
            this.key = Optional.ofNullable(key);
            this.lookFor = Optional.ofNullable(lookFor);
            this.value = value;
            this.note = Optional.ofNullable(note);
        }

        /** The key as the owner writes it, or the words that describe it where its library is not known. */
        String keyOrWords() {
            return key.orElseGet(() -> lookFor.orElse("(a setting the finding does not name)"));
        }
    }

    final String rule;
    final String severity;
    final String role;
    final Optional<String> clientId;
    final Optional<String> connector;
    /** A MirrorMaker 2 client's cluster alias: one connector's flows to two clusters are two owners. */
    final Optional<String> cluster;

    final Optional<String> principal;
    final Optional<String> nodeId;
    final Optional<String> listener;
    final Optional<String> local;
    final Optional<String> remote;
    final List<Change> changes;
    final String why;
    /** The most the flow moves with the settings in effect, in Mbit/s, where the finding names a limit. */
    final OptionalDouble limitNowMbit;
    /** What the flow should reach once every remedy named for its connection is applied, in Mbit/s. */
    final OptionalDouble expectedAfterAllMbit;

    private FleetFinding(JsonNode finding) {
        rule = required(finding, "rule");
        severity = required(finding, "severity");
        JsonNode connection = finding.path("connection");
        role = text(connection, "role").orElse("unknown");
        clientId = text(connection, "clientId");
        connector = text(connection, "connector");
        cluster = text(connection, "cluster");
        principal = text(connection, "principal");
        nodeId = text(connection, "nodeId");
        listener = text(connection, "listener");
        local = text(connection, "local");
        remote = text(connection, "remote");
        List<Change> read = new ArrayList<>();
        for (JsonNode setting : finding.path("remedy").path("settings")) {
            read.add(new Change(
                    text(setting, "scope").orElse("unknown"),
                    text(setting, "library").orElse(null),
                    text(setting, "key").orElse(null),
                    text(setting, "lookFor").orElse(null),
                    text(setting, "value").orElse(""),
                    text(setting, "note").orElse(null)));
        }
        changes = Collections.unmodifiableList(read);
        why = text(finding.path("remedy"), "why").orElse("");
        limitNowMbit = number(finding.path("limit").path("now"));
        expectedAfterAllMbit = number(finding.path("evidence").path("expectedRateAfterAll"));
    }

    /** Every finding of one answer; an answer that is not a JSON array of findings is refused with what is wrong. */
    static List<FleetFinding> parse(String answer) {
        JsonNode array;
        try {
            array = JSON.readTree(answer);
        } catch (IOException notJson) {
            throw new IllegalArgumentException("the answer is not JSON: " + firstLine(notJson.getMessage()));
        }
        if (array == null || !array.isArray()) {
            throw new IllegalArgumentException("the answer is not a JSON array of findings");
        }
        List<FleetFinding> findings = new ArrayList<>(array.size());
        for (JsonNode finding : array) {
            if (!finding.isObject()) {
                throw new IllegalArgumentException("an element of the answer is not a finding object");
            }
            findings.add(new FleetFinding(finding));
        }
        return findings;
    }

    /** Warn and critical say what to change now; info informs. */
    boolean actionable() {
        return severity.equals("warn") || severity.equals("critical");
    }

    private static String required(JsonNode node, String field) {
        return text(node, field).orElseThrow(() -> new IllegalArgumentException("a finding without \"" + field + "\""));
    }

    private static Optional<String> text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || !value.isValueNode() || value.isNull() ? Optional.empty() : Optional.of(value.asText());
    }

    private static OptionalDouble number(JsonNode rate) {
        JsonNode value = rate.get("value");
        return value != null
                        && value.isNumber()
                        && "Mbit/s".equals(rate.path("unit").asText())
                ? OptionalDouble.of(value.asDouble())
                : OptionalDouble.empty();
    }

    private static String firstLine(String text) {
        int end = text == null ? -1 : text.indexOf('\n');
        return text == null ? "" : end < 0 ? text : text.substring(0, end);
    }
}
