package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.connect.internal.policy.WorkerTaskStart;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigRequest;
import org.apache.kafka.connect.health.ConnectorType;
import org.apache.kafka.connect.sink.SinkConnector;
import org.junit.jupiter.api.Test;

class TcpsightOverridePolicyTest {
    private static ConnectorClientConfigRequest consumerOverrides(Map<String, Object> overrides) {
        return new ConnectorClientConfigRequest(
                "sink",
                ConnectorType.SINK,
                SinkConnector.class,
                overrides,
                ConnectorClientConfigRequest.ClientType.CONSUMER);
    }

    private static TcpsightOverridePolicy policy(Map<String, String> config) {
        TcpsightOverridePolicy policy = new TcpsightOverridePolicy();
        policy.configure(config);
        return policy;
    }

    @Test
    void connectsNonePolicyStillDecides() {
        List<ConfigValue> values = policy(Map.of("tcpsight.override.policy", "None"))
                .validate(consumerOverrides(Map.of("fetch.max.bytes", "1000")));
        assertFalse(values.get(0).errorMessages().isEmpty(), "Connect's None policy rejects any override");
    }

    @Test
    void connectsAllPolicyIsTheDefault() {
        List<ConfigValue> values = policy(Map.of()).validate(consumerOverrides(Map.of("fetch.max.bytes", "1000")));
        assertTrue(values.stream().allMatch(value -> value.errorMessages().isEmpty()), values.toString());
    }

    @Test
    void aSmallBufferOverrideIsRejectedAtValidationOnlyWhenAsked() {
        Map<String, Object> small = Map.of("receive.buffer.bytes", "65536");
        assertTrue(policy(Map.of()).validate(consumerOverrides(small)).stream()
                .allMatch(value -> value.errorMessages().isEmpty()));
        List<ConfigValue> rejected =
                policy(Map.of("tcpsight.override.reject.small.buffers", "true")).validate(consumerOverrides(small));
        ConfigValue buffer = rejected.stream()
                .filter(value -> value.name().equals("receive.buffer.bytes"))
                .findFirst()
                .orElseThrow();
        assertEquals(1, buffer.errorMessages().size());
        assertTrue(
                buffer.errorMessages().get(0).contains("consumer.override.receive.buffer.bytes=65536"),
                buffer.errorMessages().toString());
    }

    @Test
    void thisTestIsAValidationNotATaskBuild() {
        assertFalse(WorkerTaskStart.isCurrent());
    }

    /** A bad tcpsight key never stops the worker: Connect's policy decides alone, never more permissive than asked. */
    @Test
    void badTcpsightSettingsLeaveConnectsPolicyToDecideAlone() {
        Map<String, Object> small = Map.of("receive.buffer.bytes", "65536");
        // a bad burst: the named policy (All) decides, and tcpsight's check is off, so nothing is rejected
        List<ConfigValue> all = policy(Map.of(
                        "tcpsight.startup.burst", "0",
                        "tcpsight.override.policy", "All",
                        "tcpsight.override.reject.small.buffers", "true"))
                .validate(consumerOverrides(small));
        assertTrue(all.stream().allMatch(value -> value.errorMessages().isEmpty()), all.toString());
        // a policy that is none of Connect's: None decides, so a mistake allows nothing
        List<ConfigValue> unknown = policy(Map.of("tcpsight.override.policy", "Allowlist"))
                .validate(consumerOverrides(Map.of("fetch.max.bytes", "1000")));
        assertFalse(unknown.get(0).errorMessages().isEmpty(), "Connect's None policy rejects any override");
        // a bad key beside a named None: None still decides
        List<ConfigValue> none = policy(Map.of("tcpsight.startup.burst", "0", "tcpsight.override.policy", "None"))
                .validate(consumerOverrides(Map.of("fetch.max.bytes", "1000")));
        assertFalse(none.get(0).errorMessages().isEmpty(), "Connect's None policy rejects any override");
    }

    @Test
    void itDescribesItsSettingsToConnect() {
        assertTrue(new TcpsightOverridePolicy().config().names().contains("tcpsight.startup.max.clients.per.second"));
    }
}
