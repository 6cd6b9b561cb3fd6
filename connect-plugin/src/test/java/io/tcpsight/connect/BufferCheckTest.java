package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.config.TcpsightConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BufferCheckTest {
    private static final TcpsightConfig DEFAULTS = TcpsightConfig.defaults(); // target 100 Mbit/s

    @Test
    void aSixtyFourKibBufferAt100MsIsNamedWithItsCeilingAndTheFix() {
        Optional<String> warning = BufferCheck.judge("consumer.receive.buffer.bytes", "65536", Duration.ofMillis(100), true, DEFAULTS);
        assertTrue(warning.isPresent());
        assertTrue(warning.get().contains("consumer.receive.buffer.bytes=65536"), warning.get());
        assertTrue(warning.get().contains("5.2 Mbit/s"), warning.get());
        assertTrue(warning.get().contains("100.0 ms"), warning.get());
        assertTrue(warning.get().endsWith("set consumer.receive.buffer.bytes=-1 so the kernel autotunes the window"), warning.get());
    }

    @Test
    void autotuningLargeEnoughBuffersAndGarbageAreSilent() {
        assertFalse(BufferCheck.judge("k", "-1", Duration.ofMillis(100), true, DEFAULTS).isPresent());
        assertFalse(BufferCheck.judge("k", "16777216", Duration.ofMillis(100), true, DEFAULTS).isPresent()); // 1342 Mbit/s
        assertFalse(BufferCheck.judge("k", "lots", Duration.ofMillis(100), true, DEFAULTS).isPresent());
        assertFalse(BufferCheck.judge("k", "65536", Duration.ZERO, true, DEFAULTS).isPresent());
    }

    @Test
    void theBoundaryIsTheTargetRate() {
        // 125000 bytes over 10 ms = exactly 100 Mbit/s
        assertFalse(BufferCheck.judge("k", "125000", Duration.ofMillis(10), true, DEFAULTS).isPresent());
        assertTrue(BufferCheck.judge("k", "124999", Duration.ofMillis(10), true, DEFAULTS).isPresent());
    }

    @Test
    void theWorkerCheckJudgesOnlyClientBufferKeys() {
        List<String> warnings = BufferCheck.worker(Map.of("consumer.receive.buffer.bytes", "65536", "producer.send.buffer.bytes", "32768",
                "admin.receive.buffer.bytes", "-1", "receive.buffer.bytes", "1", "sasl.jaas.config", "secret"), Duration.ofMillis(10), false,
                DEFAULTS);
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("any path of 10 ms or more"), warnings.get(0));
        assertTrue(warnings.stream().noneMatch(warning -> warning.contains("secret")));
    }
}
