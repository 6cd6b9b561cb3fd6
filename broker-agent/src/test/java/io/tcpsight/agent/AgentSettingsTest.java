package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.config.InvalidSettingException;
import io.tcpsight.config.TcpsightConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentSettingsTest {

    @Test
    void defaultsBindToLoopbackOnTheJmxExporterStylePort() {
        AgentSettings settings = AgentSettings.parse(null);
        assertEquals(9464, settings.port);
        assertEquals("127.0.0.1", settings.host);
        assertNull(settings.congestion);
        assertEquals(10_000L, settings.config.get(TcpsightConfig.SAMPLE_INTERVAL_MS));
    }

    @Test
    void argumentsAreTheSharedKeysWithoutPrefixPlusTheAgentsOwn() {
        AgentSettings settings = AgentSettings.parse("port=9500,host=0.0.0.0,interval=2s,congestion=bbr,target.throughput.mbit=1000");
        assertEquals(9500, settings.port);
        assertEquals("0.0.0.0", settings.host);
        assertEquals("bbr", settings.congestion);
        assertEquals(2000L, settings.config.get(TcpsightConfig.SAMPLE_INTERVAL_MS));
        assertEquals(1000.0, settings.config.get(TcpsightConfig.TARGET_THROUGHPUT_MBIT));
        assertEquals(500L, AgentSettings.parse("sample.interval.ms=500").config.get(TcpsightConfig.SAMPLE_INTERVAL_MS));
        assertEquals(60_000L, AgentSettings.durationMillis("1m"));
    }

    @Test
    void aConfigFileIsReadAndArgumentsWinOverIt(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("tcpsight.properties");
        Files.write(file, List.of("tcpsight.sample.interval.ms=3000", "port=9600", "rule.min.rtt.ms=5"));
        AgentSettings settings = AgentSettings.parse("config=" + file + ",port=9700");
        assertEquals(9700, settings.port);
        assertEquals(3000L, settings.config.get(TcpsightConfig.SAMPLE_INTERVAL_MS));
        assertEquals(5.0, settings.config.get(TcpsightConfig.RULE_MIN_RTT_MS));
        InvalidSettingException missing = assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("config=/no/such/file"));
        assertTrue(missing.getMessage().startsWith("config=/no/such/file is not valid: a readable properties file"), missing.getMessage());
    }

    @Test
    void everyBadArgumentNamesTheKeyTheValueAndWhatIsAllowed() {
        assertEquals("port=70000 is not valid: a TCP port from 0 to 65535 (0 turns the HTTP endpoint off)",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("port=70000")).getMessage());
        assertEquals("interval=10 is not valid: a duration such as 500ms, 10s or 1m",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("interval=10")).getMessage());
        assertEquals("congestion=BBR; is not valid: a congestion control name such as bbr or cubic",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("congestion=BBR;")).getMessage());
        assertTrue(assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("prot=9464")).getMessage()
                .startsWith("prot=9464 is not valid: not a tcpsight agent setting; allowed: port, host, interval, congestion, config, "));
        assertEquals("agent argument=port is not valid: key=value pairs separated by commas, e.g. port=9464,host=127.0.0.1",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("port")).getMessage());
        assertEquals("tcpsight.sample.jitter=2 is not valid: a number from 0 to 0.5",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("sample.jitter=2")).getMessage());
    }
}
