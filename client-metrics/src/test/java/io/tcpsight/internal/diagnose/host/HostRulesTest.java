package io.tcpsight.internal.diagnose.host;

import static io.tcpsight.internal.diagnose.RuleFacts.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.Diagnosis;
import io.tcpsight.internal.diagnose.RuleFacts;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.KernelVersion;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class HostRulesTest {
    static KernelFacts kernel(Long timestamps, Long windowScaling) {
        return new KernelFacts(KernelVersion.of(6, 18, 0), 33_554_432L, 4_194_304L, timestamps, windowScaling);
    }

    @Test
    void windowScalingOffIsCriticalWhen64KiBCannotCarryTheTargetOverThePath() {
        TcpsightConfig config = TcpsightConfig.defaults();
        Finding far = WindowScalingDisabled.RULE
                .judge(kernel(1L, 0L), PATH, 100_000, config)
                .get();
        assertEquals(RuleId.WINDOW_SCALING_DISABLED, far.rule());
        assertEquals(Severity.CRITICAL, far.severity(), "64 KiB / 100 ms = 5.2 Mbit/s < 100");
        assertEquals("1", RuleFacts.settings(far).get("sysctl:net.ipv4.tcp_window_scaling"));
        assertEquals(5.24, (Double) far.evidence("ceilingRate").get().value(), 0.01);
        assertEquals("3", far.connection().nodeId().orElseThrow(), "names the path it judged");
        Finding near = WindowScalingDisabled.RULE
                .judge(kernel(1L, 0L), PATH, 200, config)
                .get();
        assertEquals(Severity.WARN, near.severity(), "64 KiB / 0.2 ms = 2.6 Gbit/s");
        assertFalse(WindowScalingDisabled.RULE
                .judge(kernel(1L, 1L), PATH, 100_000, config)
                .isPresent());
        assertFalse(
                WindowScalingDisabled.RULE
                        .judge(kernel(1L, null), PATH, 100_000, config)
                        .isPresent(),
                "unknown is not a finding");
    }

    @Test
    void timestampsOffWarnsThatASynCookieWouldCostWindowScaling() {
        Finding off = TimestampsDisabled.RULE
                .judge(kernel(0L, 1L), PATH, 100_000, TcpsightConfig.defaults())
                .get();
        assertEquals(Severity.WARN, off.severity());
        assertEquals(Map.of("sysctl:net.ipv4.tcp_timestamps", "1"), RuleFacts.settings(off));
        assertTrue(off.remedy().why().contains("SYN cookie"));
        assertFalse(TimestampsDisabled.RULE
                .judge(kernel(1L, 1L), PATH, 100_000, TcpsightConfig.defaults())
                .isPresent());
        assertFalse(TimestampsDisabled.RULE
                .judge(kernel(null, 1L), PATH, 100_000, TcpsightConfig.defaults())
                .isPresent());
    }

    @Test
    void diagnosisRunsEveryHostRule() {
        assertEquals(
                List.of(RuleId.WINDOW_SCALING_DISABLED, RuleId.TIMESTAMPS_DISABLED),
                Diagnosis.host(kernel(0L, 0L), PATH, 100_000, TcpsightConfig.defaults()).stream()
                        .map(Finding::rule)
                        .collect(Collectors.toList()),
                "every host rule, in the order a round runs them");
        assertTrue(Diagnosis.host(kernel(1L, 1L), PATH, 100_000, TcpsightConfig.defaults())
                .isEmpty());
    }
}
