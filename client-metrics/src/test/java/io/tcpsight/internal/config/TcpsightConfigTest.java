package io.tcpsight.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TcpsightConfigTest {

    @Test
    void defaultsApplyAndOtherKeysAreIgnored() {
        TcpsightConfig config =
                TcpsightConfig.from(Map.of("bootstrap.servers", "x:9092", "tcpsight.sample.interval.ms", 2000));
        assertEquals(2000L, config.get(TcpsightConfig.SAMPLE_INTERVAL_MS));
        assertEquals(0.1, config.get(TcpsightConfig.SAMPLE_JITTER));
        assertEquals(12_500_000, config.targetBytesPerSecond(), 1e-6);
        assertEquals("sample.interval.ms", TcpsightConfig.SAMPLE_INTERVAL_MS.shortName());
    }

    @Test
    void aBadValueNamesTheKeyTheValueAndWhatIsAllowed() {
        InvalidSettingException notANumber = assertThrows(
                InvalidSettingException.class, () -> TcpsightConfig.from(Map.of("tcpsight.sample.interval.ms", "10s")));
        assertEquals(
                "tcpsight.sample.interval.ms=10s is not valid: a whole number of milliseconds from 100 to 3600000",
                notANumber.getMessage());
        assertEquals(
                "tcpsight.sample.jitter=0.9 is not valid: a number from 0 to 0.5",
                assertThrows(
                                InvalidSettingException.class,
                                () -> TcpsightConfig.from(Map.of("tcpsight.sample.jitter", "0.9")))
                        .getMessage());
        assertEquals(
                "tcpsight.metrics.peer.labels=yes is not valid: true or false",
                assertThrows(
                                InvalidSettingException.class,
                                () -> TcpsightConfig.from(Map.of("tcpsight.metrics.peer.labels", "yes")))
                        .getMessage());
        assertEquals(
                "tcpsight.metrics.top.connections=5000 is not valid: a whole number of connections from 0 to 1000",
                assertThrows(
                                InvalidSettingException.class,
                                () -> TcpsightConfig.from(Map.of("tcpsight.metrics.top.connections", "5000")))
                        .getMessage());
        assertThrows(
                InvalidSettingException.class,
                () -> TcpsightConfig.from(Map.of("tcpsight.target.throughput.mbit", "NaN")));
    }

    @Test
    void theRetiredPerConnectionKeyNamesItsReplacement() {
        InvalidSettingException retired = assertThrows(
                InvalidSettingException.class,
                () -> TcpsightConfig.from(Map.of("tcpsight.metrics.per.connection", "true")));
        assertEquals("tcpsight.metrics.per.connection", retired.key());
        assertTrue(retired.getMessage().startsWith("tcpsight.metrics.per.connection=true is not valid: "));
        assertTrue(retired.getMessage().contains("tcpsight.metrics.top.connections=N"), retired.getMessage());
    }
}
