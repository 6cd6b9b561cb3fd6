package io.tcpsight.internal.diagnose.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.RuleFacts;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokerConfigRulesTest {
    static final Map<String, String> KAFKA_DEFAULTS =
            Map.of("socket.send.buffer.bytes", "102400", "socket.receive.buffer.bytes", "102400");

    @Test
    void kafkasDefaultBrokerBuffersAreCriticalOnA100MsPath() {
        List<Finding> findings =
                BrokerConfigRules.socketBuffers(KAFKA_DEFAULTS, RuleFacts.PATH, 100_000, TcpsightConfig.defaults());
        assertEquals(2, findings.size(), findings.toString());
        Finding send = findings.get(0);
        assertEquals(RuleId.SMALL_SEND_BUFFER, send.rule());
        assertEquals(Severity.CRITICAL, send.severity(), "102400 B / 100 ms = 8.2 Mbit/s, under a quarter of 100");
        assertEquals(8.19, (Double) send.evidence("ceilingRate").get().value(), 0.01);
        assertEquals("-1", RuleFacts.settings(send).get("broker:socket.send.buffer.bytes"));
        assertEquals(
                "4096 16384 5242880",
                RuleFacts.settings(send).get("broker-host sysctl:net.ipv4.tcp_wmem"),
                "four BDPs at 100 Mbit/s and 100 ms, whole MiB");
        assertTrue(send.remedy().why().contains("fetch responses"));
        Finding receive = findings.get(1);
        assertEquals(RuleId.SMALL_RECEIVE_BUFFER, receive.rule());
        assertEquals("-1", RuleFacts.settings(receive).get("broker:socket.receive.buffer.bytes"));
    }

    @Test
    void warnBetweenAQuarterOfTheTargetAndTheTarget() {
        Map<String, String> config = Map.of("socket.send.buffer.bytes", "1048576");
        Finding send = BrokerConfigRules.sendBuffer(config, RuleFacts.PATH, 100_000, TcpsightConfig.defaults())
                .get();
        assertEquals(Severity.WARN, send.severity(), "1 MiB / 100 ms = 84 Mbit/s");
    }

    @Test
    void autotunedOrLargeEnoughOrShortPathsOrUnknownValuesAreFine() {
        TcpsightConfig config = TcpsightConfig.defaults();
        assertTrue(BrokerConfigRules.socketBuffers(
                        Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"),
                        RuleFacts.PATH,
                        100_000,
                        config)
                .isEmpty());
        assertTrue(BrokerConfigRules.socketBuffers(
                        Map.of("socket.send.buffer.bytes", "4194304"), RuleFacts.PATH, 100_000, config)
                .isEmpty());
        assertTrue(
                BrokerConfigRules.socketBuffers(KAFKA_DEFAULTS, RuleFacts.PATH, 5_000, config)
                        .isEmpty(),
                "5 ms is below rule.min.rtt.ms");
        assertTrue(BrokerConfigRules.socketBuffers(Map.of(), RuleFacts.PATH, 100_000, config)
                .isEmpty());
        assertTrue(BrokerConfigRules.socketBuffers(
                        Map.of("socket.send.buffer.bytes", "lots"), RuleFacts.PATH, 100_000, config)
                .isEmpty());
    }
}
