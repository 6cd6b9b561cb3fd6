package io.tcpsight.internal.diagnose.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** A client's own buffer judged on a measured path, without any socket's owner. */
class ClientConfigRulesTest {
    private static final TcpsightConfig CONFIG = TcpsightConfig.defaults();
    private static final long RTT_100_MS = 100_000;

    private static ConnectionIdentity onPath(String clientId) {
        return ConnectionIdentity.of(Role.CLIENT, null, new InetSocketAddress("10.0.0.2", 9092))
                .withClientId(clientId)
                .withNodeId("1");
    }

    private static KafkaSettings settings(ClientKind kind, String receive, String send) {
        return KafkaSettings.fromClientConfig(Map.of("receive.buffer.bytes", receive, "send.buffer.bytes", send), kind);
    }

    @Test
    void aConnectorsSmallReceiveBufferIsNamedWithItsOverrideKeyAtTheMeasuredRtt() {
        List<Finding> findings = ClientConfigRules.settingsOnMeasuredPath(
                onPath("connector-consumer-slow-*"),
                settings(ClientKind.CONNECT_CONSUMER, "65536", "131072"),
                RTT_100_MS,
                CONFIG);
        assertEquals(1, findings.size(), findings.toString());
        Finding finding = findings.get(0);
        assertEquals(RuleId.SMALL_RECEIVE_BUFFER, finding.rule());
        assertEquals(Severity.CRITICAL, finding.severity());
        assertEquals(BulkFlow.TO_CLIENT, finding.connection().knownFlow());
        assertEquals(100.0, finding.evidence("rtt").get().value());
        assertEquals(
                List.of("consumer.receive.buffer.bytes=-1", "consumer.override.receive.buffer.bytes=-1"),
                finding.remedy().settings().stream()
                        .map(setting -> setting.key().orElse(null) + "=" + setting.value())
                        .collect(Collectors.toList()));
        assertTrue(
                finding.remedy().why().contains("the 100.0 ms measured to node 1 (10.0.0.2:9092)"), finding.toString());
    }

    @Test
    void theBufferJudgedIsTheOneTheClientsBulkDataPasses() {
        List<Finding> producer = ClientConfigRules.settingsOnMeasuredPath(
                onPath("producer-1"), settings(ClientKind.PRODUCER, "32768", "131072"), RTT_100_MS, CONFIG);
        assertEquals(1, producer.size(), producer.toString());
        assertEquals(RuleId.SMALL_SEND_BUFFER, producer.get(0).rule());
        assertEquals(
                "send.buffer.bytes",
                producer.get(0).remedy().settings().get(0).key().orElse(null));
        assertTrue(
                ClientConfigRules.settingsOnMeasuredPath(
                                onPath("adminclient-1"),
                                settings(ClientKind.ADMIN, "65536", "131072"),
                                RTT_100_MS,
                                CONFIG)
                        .isEmpty(),
                "an admin client's buffers carry no bulk data");
    }

    /**
     * A config alone says the rate after all too: a consumer's 64 KiB window over 100 ms (5.2 Mbit/s)
     * lifted leaves Kafka's fetch sizes, which no finding of the config names: 1 MiB a response of one
     * partition, 1048576 / (0.1 s + 1048576 / 12.5e6 B/s) = 45.6 Mbit/s. A producer's send buffer
     * lifted leaves nothing the config shows below the target. An autotuned buffer's host max is not
     * known here, and no ceiling is counted for it.
     */
    @Test
    void theConfigsFindingSaysTheRateOnceItsBufferAutotunesWithWhatElseTheConfigHolds() {
        Finding consumer = ClientConfigRules.settingsOnMeasuredPath(
                        onPath("consumer-1"), settings(ClientKind.CONSUMER, "65536", "131072"), RTT_100_MS, CONFIG)
                .get(0);
        assertEquals(45.6, consumer.evidence(Finding.EXPECTED_AFTER_ALL).get().value());
        assertTrue(consumer.remedy().why().endsWith("; expected after all: 45.6 Mbit/s"), consumer.toString());
        Finding producer = ClientConfigRules.settingsOnMeasuredPath(
                        onPath("producer-1"), settings(ClientKind.PRODUCER, "32768", "131072"), RTT_100_MS, CONFIG)
                .get(0);
        assertEquals(100.0, producer.evidence(Finding.EXPECTED_AFTER_ALL).get().value());
        // a worker's key judged before any connection exists, often over an assumed path, says no rate
        assertTrue(ClientConfigRules.explicitBuffer(
                        "connect-worker",
                        "consumer.receive.buffer.bytes",
                        65_536,
                        onPath("consumer-1"),
                        RTT_100_MS,
                        false,
                        CONFIG)
                .get()
                .evidence(Finding.EXPECTED_AFTER_ALL)
                .isEmpty());
    }

    @Test
    void anAutotunedOrUnknownBufferAndAShortPathRaiseNothing() {
        assertTrue(ClientConfigRules.settingsOnMeasuredPath(
                        onPath("consumer-1"), settings(ClientKind.CONSUMER, "-1", "-1"), RTT_100_MS, CONFIG)
                .isEmpty());
        assertTrue(ClientConfigRules.settingsOnMeasuredPath(
                        onPath("consumer-1"), KafkaSettings.unknown(), RTT_100_MS, CONFIG)
                .isEmpty());
        assertTrue(
                ClientConfigRules.settingsOnMeasuredPath(
                                onPath("consumer-1"), settings(ClientKind.CONSUMER, "65536", "-1"), 200, CONFIG)
                        .isEmpty(),
                "0.2 ms: 64 KiB is plenty");
    }
}
