package io.tcpsight.connect.internal.policy;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.config.ClientConfigRules;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Judges the configured socket buffers of a worker and its connectors before any connection
 * exists, with the rules' one window model ({@link ClientConfigRules#explicitBuffer}). The REST
 * extension and the override policy word the findings.
 */
public final class BufferCheck {
    /** Worker-level client keys a Connect worker passes to its task and admin clients. */
    static final List<String> WORKER_KEYS = Arrays.asList(
            "consumer.receive.buffer.bytes",
            "consumer.send.buffer.bytes",
            "producer.send.buffer.bytes",
            "producer.receive.buffer.bytes",
            "admin.receive.buffer.bytes",
            "admin.send.buffer.bytes");

    private BufferCheck() {}

    /** A finding when {@code value} is an explicit buffer below the target at {@code rttMicros}; empty for anything unparseable. */
    public static Optional<Finding> judge(
            String scope, String key, Object value, long rttMicros, boolean rttMeasured, TcpsightConfig config) {
        long bytes;
        try {
            bytes = Long.parseLong(String.valueOf(value).trim());
        } catch (NumberFormatException notANumber) {
            return Optional.empty(); // Connect reports a malformed client config itself
        }
        ConnectionIdentity owner = ConnectionIdentity.of(Role.CLIENT, null, null);
        return ClientConfigRules.explicitBuffer(scope, key, bytes, owner, rttMicros, rttMeasured, config);
    }

    /** Every small buffer among the worker-level client keys, judged at {@code rttMicros}. */
    public static List<Finding> worker(
            Map<String, ?> workerConfig, long rttMicros, boolean rttMeasured, TcpsightConfig config) {
        List<Finding> findings = new ArrayList<>();
        for (String key : WORKER_KEYS) {
            Object value = workerConfig.get(key);
            if (value != null) {
                judge("connect-worker", key, value, rttMicros, rttMeasured, config)
                        .ifPresent(findings::add);
            }
        }
        return findings;
    }
}
