package io.tcpsight.connect.internal.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BufferCheckTest {
    private static final TcpsightConfig DEFAULTS = TcpsightConfig.defaults(); // target 100 Mbit/s

    @Test
    void aSixtyFourKibBufferAt100MsIsNamedWithItsCeilingAndTheFix() {
        Optional<Finding> finding =
                BufferCheck.judge("connect-worker", "consumer.receive.buffer.bytes", "65536", 100_000, true, DEFAULTS);
        assertTrue(finding.isPresent());
        String warning = finding.get().remedy().why();
        assertTrue(warning.contains("consumer.receive.buffer.bytes=65536"), warning);
        assertTrue(warning.contains("5.2 Mbit/s"), warning);
        assertTrue(warning.contains("100.0 ms"), warning);
        assertTrue(
                warning.endsWith("set consumer.receive.buffer.bytes=-1 so the kernel autotunes the window"), warning);
        assertEquals(RuleId.SMALL_RECEIVE_BUFFER, finding.get().rule());
        assertEquals(
                Severity.CRITICAL, finding.get().severity(), "5.2 Mbit/s is below a quarter of the 100 Mbit/s target");
        assertEquals(
                "consumer.receive.buffer.bytes=-1",
                finding.get().remedy().settings().get(0).key().orElse(null) + "="
                        + finding.get().remedy().settings().get(0).value());
        assertEquals(
                5.24288, (double) finding.get().evidence("ceilingRate").get().value(), 1e-9);
    }

    @Test
    void autotuningLargeEnoughBuffersAndGarbageAreSilent() {
        assertFalse(BufferCheck.judge("s", "k", "-1", 100_000, true, DEFAULTS).isPresent());
        assertFalse(
                BufferCheck.judge("s", "k", "16777216", 100_000, true, DEFAULTS).isPresent()); // 1342 Mbit/s
        assertFalse(BufferCheck.judge("s", "k", "lots", 100_000, true, DEFAULTS).isPresent());
        assertFalse(BufferCheck.judge("s", "k", "65536", 0, true, DEFAULTS).isPresent());
    }

    @Test
    void theBoundaryIsTheTargetRate() {
        // 125000 bytes over 10 ms = exactly 100 Mbit/s
        assertFalse(
                BufferCheck.judge("s", "k", "125000", 10_000, true, DEFAULTS).isPresent());
        assertTrue(BufferCheck.judge("s", "k", "124999", 10_000, true, DEFAULTS).isPresent());
    }

    @Test
    void theWorkerCheckJudgesOnlyClientBufferKeys() {
        List<Finding> findings = BufferCheck.worker(
                Map.of(
                        "consumer.receive.buffer.bytes",
                        "65536",
                        "producer.send.buffer.bytes",
                        "32768",
                        "admin.receive.buffer.bytes",
                        "-1",
                        "receive.buffer.bytes",
                        "1",
                        "sasl.jaas.config",
                        "secret"),
                10_000,
                false,
                DEFAULTS);
        List<String> warnings =
                findings.stream().map(finding -> finding.remedy().why()).collect(Collectors.toList());
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("any path of 10 ms or more"), warnings.get(0));
        assertTrue(warnings.stream().noneMatch(warning -> warning.contains("secret")));
        assertTrue(
                findings.stream().anyMatch(finding -> finding.rule() == RuleId.SMALL_SEND_BUFFER),
                "producer.send.buffer.bytes");
    }
}
