package io.tcpsight.lab;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One finding as /findings (agent and plugin) and the doctor's --json serve it, typed for assertions. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record FindingView(
        String rule, String severity, Peer connection, Map<String, Measured> evidence, Remedy remedy) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Who the finding is about; absent fields are null. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Peer(
            String role,
            String clientId,
            String connector,
            String task,
            String cluster,
            String mirrorRole,
            String nodeId,
            String listener,
            String principal,
            String clientSoftware,
            String clientLibrary,
            String flow,
            String local,
            String remote) {}

    /** One evidence value with its unit. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Measured(JsonNode value, String unit) {}

    /** The settings to change and why. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Remedy(List<Setting> settings, String why) {}

    /** scope:key=value, e.g. client:receive.buffer.bytes=-1; a client setting names its library, an unknown one's key is in words. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Setting(String scope, String library, String key, String lookFor, String value, String note) {
        /** "client/librdkafka:socket.receive.buffer.bytes=0", what a table shows. */
        public String brief() {
            return scope + (library == null ? "" : "/" + library) + ":" + (key == null ? "(" + lookFor + ")" : key)
                    + "=" + value;
        }
    }

    public static List<FindingView> list(String json) throws IOException {
        return JSON.readValue(json, new TypeReference<List<FindingView>>() {});
    }

    public boolean is(String ruleId) {
        return rule.equals(ruleId);
    }

    public boolean clientIdStartsWith(String prefix) {
        return connection.clientId() != null && connection.clientId().startsWith(prefix);
    }

    /** An evidence value as a number; fails when the finding lacks it. */
    public double number(String name) {
        Measured measured = evidence.get(name);
        if (measured == null || !measured.value().isNumber()) {
            throw new AssertionError("no numeric evidence " + name + " in " + this);
        }
        return measured.value().asDouble();
    }

    public Optional<String> text(String name) {
        return Optional.ofNullable(evidence.get(name))
                .map(measured -> measured.value().asText());
    }

    /** The remedy's value for scope:key, e.g. setting("client", "receive.buffer.bytes"). */
    public Optional<String> setting(String scope, String key) {
        return remedy.settings().stream()
                .filter(setting -> setting.scope().equals(scope) && key.equals(setting.key()))
                .map(Setting::value)
                .findFirst();
    }

    /** rule:clientId, what a failure message lists of the findings it saw. */
    public String brief() {
        return rule + ":" + connection.clientId();
    }
}
