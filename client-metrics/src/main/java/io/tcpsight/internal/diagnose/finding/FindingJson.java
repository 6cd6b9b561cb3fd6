package io.tcpsight.internal.diagnose.finding;

import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.MirrorClient;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.UnaryOperator;

/**
 * The JSON form of findings, the contract of /findings, /tcpsight/findings and doctor --json:
 * <pre>
 * {"rule":"small-receive-buffer","severity":"warn",
 *  "connection":{"role":"client","clientId":"c1","nodeId":"1","listener":"PLAINTEXT","local":"10.0.0.1:50000","remote":"10.0.0.2:9092"},
 *  "evidence":{"rtt":{"value":100.2,"unit":"ms"},...},
 *  "remedy":{"settings":[{"scope":"client","library":"java","key":"receive.buffer.bytes","value":"-1"}],"why":"..."},
 *  "limit":{"name":"receive window","now":{"value":5.2,"unit":"Mbit/s"},"after":{"value":160.0,"unit":"Mbit/s"}}}
 * </pre>
 * Connection fields that are not known are left out. A client setting names its library; for a
 * library this tool does not know, "key" is absent and "lookFor" describes the setting in words;
 * "note" says, for example, that the value is already the library's default. "limit" is there only
 * on a finding that names a limit on its flow; such a finding also carries the evidence
 * {@value Finding#EXPECTED_AFTER_ALL} once its round has said what every remedy gives together.
 */
public final class FindingJson {
    private FindingJson() {}

    public static String array(List<Finding> findings) {
        return array(findings, false);
    }

    /**
     * @param redacted leave principals and addresses out: the connection object has no principal,
     *     local or remote, and where a text names the connection's addresses or principal it says
     *     {@value #REDACTED} instead
     */
    public static String array(List<Finding> findings, boolean redacted) {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < findings.size(); i++) {
            if (i > 0) {
                json.append(',');
            }
            write(json, findings.get(i), redacted);
        }
        return json.append(']').toString();
    }

    /** What a redacted answer says in place of an address or a principal. */
    public static final String REDACTED = "(redacted)";

    public static String of(Finding finding) {
        StringBuilder json = new StringBuilder();
        write(json, finding, false);
        return json.toString();
    }

    private static void write(StringBuilder json, Finding finding, boolean redacted) {
        ConnectionIdentity identity = finding.connection();
        UnaryOperator<String> text = redacted ? words -> redact(words, identity) : UnaryOperator.identity();
        json.append("{\"rule\":");
        JsonText.string(json, finding.rule().id());
        json.append(",\"severity\":");
        JsonText.string(json, finding.severity().label());
        json.append(",\"connection\":");
        connection(json, identity, redacted);
        json.append(",\"evidence\":{");
        List<Evidence> evidence = finding.evidence();
        for (int i = 0; i < evidence.size(); i++) {
            Evidence item = evidence.get(i);
            if (i > 0) {
                json.append(',');
            }
            JsonText.string(json, item.name());
            json.append(":{\"value\":");
            JsonText.value(json, item.value() instanceof String ? text.apply((String) item.value()) : item.value());
            json.append(",\"unit\":");
            JsonText.string(json, item.unit());
            json.append('}');
        }
        json.append("},\"remedy\":{\"settings\":[");
        List<Setting> settings = finding.remedy().settings();
        for (int i = 0; i < settings.size(); i++) {
            Setting setting = settings.get(i);
            if (i > 0) {
                json.append(',');
            }
            json.append("{\"scope\":");
            JsonText.string(json, setting.scope());
            field(json, "library", setting.library().orElse(null));
            field(json, "key", setting.key().orElse(null));
            field(json, "lookFor", setting.lookFor().orElse(null));
            json.append(",\"value\":");
            JsonText.string(json, setting.value());
            field(json, "note", setting.note().orElse(null));
            json.append('}');
        }
        json.append("],\"why\":");
        JsonText.string(json, text.apply(finding.remedy().why()));
        json.append('}');
        finding.limit().ifPresent(limit -> limit(json, limit));
        json.append('}');
    }

    /**
     * The limit a finding names on its flow: what it is, the most the flow moves with the settings
     * in effect ("now") and once its remedy is applied ("after", absent where nothing this end knows
     * holds the flow then). With the expected rate after all remedies, what a fleet's report ranks by.
     */
    private static void limit(StringBuilder json, Limit limit) {
        json.append(",\"limit\":{\"name\":");
        JsonText.string(json, limit.name());
        json.append(",\"now\":");
        rate(json, limit.nowBytesPerSecond());
        if (limit.afterBytesPerSecond() != Limit.UNBOUNDED) {
            json.append(",\"after\":");
            rate(json, limit.afterBytesPerSecond());
        }
        json.append('}');
    }

    private static void rate(StringBuilder json, double bytesPerSecond) {
        json.append("{\"value\":");
        JsonText.value(json, Math.round(Rates.mbit(bytesPerSecond) * 10) / 10.0);
        json.append(",\"unit\":\"Mbit/s\"}");
    }

    /** A connection identity as a JSON object with the known fields only. */
    public static void connection(StringBuilder json, ConnectionIdentity identity) {
        connection(json, identity, false);
    }

    /** The same, without principal and addresses when {@code redacted}. */
    public static void connection(StringBuilder json, ConnectionIdentity identity, boolean redacted) {
        json.append("{\"role\":");
        JsonText.string(json, identity.role().label());
        field(json, "clientId", identity.clientId().orElse(null));
        if (identity.clientKind().isConnect()) {
            String clientId = identity.clientId().get();
            field(json, "connector", ClientKind.connectorName(clientId).orElse(null));
            OptionalInt task = ClientKind.connectorTask(clientId);
            field(json, "task", task.isPresent() ? Integer.toString(task.getAsInt()) : null);
        } else if (identity.clientKind().isMirror()) {
            MirrorClient mirror =
                    MirrorClient.fromClientId(identity.clientId().get()).get();
            field(json, "connector", mirror.connector());
            field(json, "cluster", mirror.clusterAlias());
            field(json, "mirrorRole", mirror.role());
        }
        field(json, "nodeId", identity.nodeId().orElse(null));
        field(json, "listener", identity.listener().orElse(null));
        if (!redacted) {
            field(json, "principal", identity.principal().orElse(null));
        }
        field(json, "clientSoftware", identity.clientSoftware().orElse(null));
        if (identity.role() == Role.BROKER) {
            field(json, "clientLibrary", identity.clientLibrary().label());
        }
        BulkFlow flow = identity.knownFlow();
        field(json, "flow", flow == BulkFlow.UNKNOWN ? null : flow.label());
        if (!redacted) {
            field(
                    json,
                    "local",
                    identity.local().map(ConnectionIdentity::address).orElse(null));
            field(
                    json,
                    "remote",
                    identity.remote().map(ConnectionIdentity::address).orElse(null));
        }
        json.append('}');
    }

    /** {@code text} with the connection's addresses (with or without the port) and principal taken out. */
    static String redact(String text, ConnectionIdentity identity) {
        if (text == null) {
            return null;
        }
        String redacted = text;
        for (InetSocketAddress end : new InetSocketAddress[] {
            identity.local().orElse(null), identity.remote().orElse(null)
        }) {
            if (end != null) {
                redacted = redacted.replace(ConnectionIdentity.address(end), REDACTED);
                if (end.getAddress() != null) {
                    redacted = redacted.replace(end.getAddress().getHostAddress(), REDACTED);
                }
            }
        }
        String principal = identity.principal().orElse("");
        return principal.isEmpty() ? redacted : redacted.replace(principal, REDACTED);
    }

    private static void field(StringBuilder json, String name, String value) {
        if (value != null) {
            json.append(',');
            JsonText.string(json, name);
            json.append(':');
            JsonText.string(json, value);
        }
    }
}
