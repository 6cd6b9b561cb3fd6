package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.InvalidSettingException;
import io.tcpsight.internal.config.TcpsightConfig;
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
        assertEquals(0.0, settings.connectRate, "connect pacing is off unless asked");
        assertEquals(10_000L, settings.config.get(TcpsightConfig.SAMPLE_INTERVAL_MS));
    }

    @Test
    void argumentsAreTheSharedKeysWithoutPrefixPlusTheAgentsOwn() {
        AgentSettings settings =
                AgentSettings.parse("port=9500,host=0.0.0.0,interval=2s,congestion=bbr,target.throughput.mbit=1000");
        assertEquals(9500, settings.port);
        assertEquals("0.0.0.0", settings.host);
        assertEquals("bbr", settings.congestion);
        assertEquals(2000L, settings.config.get(TcpsightConfig.SAMPLE_INTERVAL_MS));
        assertEquals(1000.0, settings.config.get(TcpsightConfig.TARGET_THROUGHPUT_MBIT));
        assertEquals(500L, AgentSettings.parse("sample.interval.ms=500").config.get(TcpsightConfig.SAMPLE_INTERVAL_MS));
        assertEquals(60_000L, AgentSettings.durationMillis("interval", "1m"));
    }

    @Test
    void aConfigFileIsReadAndArgumentsWinOverIt(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("tcpsight.properties");
        Files.write(file, List.of("tcpsight.sample.interval.ms=3000", "port=9600", "rule.min.rtt.ms=5"));
        AgentSettings settings = AgentSettings.parse("config=" + file + ",port=9700");
        assertEquals(9700, settings.port);
        assertEquals(3000L, settings.config.get(TcpsightConfig.SAMPLE_INTERVAL_MS));
        assertEquals(5.0, settings.config.get(TcpsightConfig.RULE_MIN_RTT_MS));
        InvalidSettingException missing =
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("config=/no/such/file"));
        assertTrue(
                missing.getMessage().startsWith("config=/no/such/file is not valid: a readable properties file"),
                missing.getMessage());
    }

    /** What tcpsight attach checks before it touches the JVM: parse's judgement, the files left to the agent. */
    @Test
    void checkJudgesAsParseDoesWithoutReadingAFile() {
        for (String bad : List.of("port=abc", "colour=blue", "interval=10", "connect.rate=0", "http.redact=yes")) {
            InvalidSettingException parsed =
                    assertThrows(InvalidSettingException.class, () -> AgentSettings.parse(bad));
            InvalidSettingException checked =
                    assertThrows(InvalidSettingException.class, () -> AgentSettings.check(bad));
            assertEquals(parsed.getMessage(), checked.getMessage(), bad);
        }
        // the files are the JVM's to read: its working directory, its container's file system
        assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("http.auth.token.file=/no/such/token"));
        AgentSettings.check("http.auth.token.file=/no/such/token");
        AgentSettings.check("config=relative/tcpsight.properties,port=9500");
        // a key that needs another is judged when the arguments are all the keys there are
        assertTrue(assertThrows(InvalidSettingException.class, () -> AgentSettings.check("connect.burst=3"))
                .getMessage()
                .startsWith("connect.burst=3 is not valid: only together with connect.rate"));
        AgentSettings.check("config=tcpsight.properties,connect.burst=3");
        assertTrue(assertThrows(InvalidSettingException.class, () -> AgentSettings.check("http.tls.cert=/x.pem"))
                .getMessage()
                .startsWith("http.tls.cert=/x.pem is not valid: together with http.tls.key"));
        AgentSettings.check("config=tcpsight.properties,http.tls.cert=/x.pem");
        // what no file can mend is refused with config= too
        assertThrows(
                InvalidSettingException.class, () -> AgentSettings.check("config=tcpsight.properties,http.redact=yes"));
        assertThrows(
                InvalidSettingException.class,
                () -> AgentSettings.check("config=tcpsight.properties,http.auth.token.file=a,http.auth.basic.file=b"));
    }

    @Test
    void theAgentsOwnKeysWorkWithTheTcpsightPrefixToo() {
        AgentSettings settings = AgentSettings.parse("tcpsight.port=45229,tcpsight.host=0.0.0.0,tcpsight.interval=2s");
        assertEquals(45229, settings.port);
        assertEquals("0.0.0.0", settings.host);
        assertEquals(2000L, settings.config.get(TcpsightConfig.SAMPLE_INTERVAL_MS));
        assertEquals(
                "tcpsight.port=2 is not valid: given twice, as port and tcpsight.port: keep one",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("port=1,tcpsight.port=2"))
                        .getMessage());
    }

    @Test
    void aSecretInAConfigFileIsNeverRepeatedInAnError(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("tcpsight.properties");
        Files.write(file, List.of("ssl.keystore.password=hunter2"));
        String message = assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("config=" + file))
                .getMessage();
        assertTrue(message.startsWith("ssl.keystore.password=[hidden] is not valid"), message);
        assertFalse(message.contains("hunter2"), message);
    }

    @Test
    void everyBadArgumentNamesTheKeyTheValueAndWhatIsAllowed() {
        assertEquals(
                "port=70000 is not valid: a TCP port from 0 to 65535 (0 turns the HTTP endpoint off)",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("port=70000"))
                        .getMessage());
        assertEquals(
                "interval=10 is not valid: a duration such as 500ms, 10s or 1m",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("interval=10"))
                        .getMessage());
        assertEquals(
                "congestion=BBR; is not valid: a congestion control name such as bbr or cubic",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("congestion=BBR;"))
                        .getMessage());
        assertTrue(
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("prot=9464"))
                        .getMessage()
                        .startsWith(
                                "prot=9464 is not valid: not a tcpsight agent setting; allowed: port, host, interval, congestion, connect.rate, connect.burst, connect.max.wait, listen.backlog, config, "));
        assertTrue(assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("listen.backlog=70000"))
                .getMessage()
                .startsWith("listen.backlog=70000 is not valid: "));
        assertEquals(1024, AgentSettings.parse("tcpsight.listen.backlog=1024").listenBacklog);
        assertEquals(0, AgentSettings.parse("").listenBacklog, "off unless asked for");
        assertTrue(
                AgentSettings.parse("tcpsight.http.redact=true").access.redacted(),
                "the access keys take the prefix too");
        assertEquals(
                "agent argument=port is not valid: key=value pairs separated by commas, e.g. port=9464,host=127.0.0.1;"
                        + " from jcmd, quote them so that jcmd passes them whole: jcmd <pid> JVMTI.agent_load"
                        + " <agent.jar> '\"port=9464,interval=10s\"'",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("port"))
                        .getMessage());
        assertEquals(
                "tcpsight.sample.jitter=2 is not valid: a number from 0 to 0.5",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("sample.jitter=2"))
                        .getMessage());
    }

    @Test
    void connectPacingIsOptInAndItsArgumentsAreChecked() {
        AgentSettings paced = AgentSettings.parse("connect.rate=150,connect.burst=3,connect.max.wait=2s");
        assertEquals(150.0, paced.connectRate);
        assertEquals(3, paced.connectBurst);
        assertEquals(2000, paced.connectMaxWaitMillis);
        AgentSettings defaults = AgentSettings.parse("connect.rate=0.5");
        assertEquals(AgentSettings.DEFAULT_CONNECT_BURST, defaults.connectBurst);
        assertEquals(AgentSettings.DEFAULT_CONNECT_MAX_WAIT_MS, defaults.connectMaxWaitMillis);
        assertEquals(
                "connect.rate=0 is not valid: a number of client connects per second across the JVM from 0.1 to 100000",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("connect.rate=0"))
                        .getMessage());
        assertTrue(assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("connect.rate=fast"))
                .getMessage()
                .startsWith("connect.rate=fast is not valid: "));
        assertEquals(
                "connect.burst=0 is not valid: a whole number of connects that may go back to back from 1 to 100000",
                assertThrows(
                                InvalidSettingException.class,
                                () -> AgentSettings.parse("connect.rate=10,connect.burst=0"))
                        .getMessage());
        assertEquals(
                "connect.max.wait=5 is not valid: a duration such as 500ms, 10s or 1m",
                assertThrows(
                                InvalidSettingException.class,
                                () -> AgentSettings.parse("connect.rate=10,connect.max.wait=5"))
                        .getMessage());
        assertEquals(
                "connect.max.wait=2m is not valid: at most 60s: the wait blocks the connecting client's thread",
                assertThrows(
                                InvalidSettingException.class,
                                () -> AgentSettings.parse("connect.rate=10,connect.max.wait=2m"))
                        .getMessage());
        // 153722867280913 minutes wrapped to a negative millisecond count and passed the 60 s check.
        assertEquals(
                "connect.max.wait=153722867280913m is not valid: a duration of at most 9223372036854775807 ms",
                assertThrows(
                                InvalidSettingException.class,
                                () -> AgentSettings.parse("connect.rate=10,connect.max.wait=153722867280913m"))
                        .getMessage());
        assertEquals(
                "interval=99999999999999999999s is not valid: a duration of at most 9223372036854775807 ms",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("interval=99999999999999999999s"))
                        .getMessage());
        assertEquals(
                "congestion=bbr?2026-11-24 WARN forged is not valid: a congestion control name such as bbr or cubic",
                assertThrows(
                                InvalidSettingException.class,
                                () -> AgentSettings.parse("congestion=bbr\n2026-11-24 WARN forged"))
                        .getMessage(),
                "a control character in a value never reaches a log line");
        assertEquals(
                "connect.burst=4 is not valid: only together with connect.rate, which turns connect pacing on",
                assertThrows(InvalidSettingException.class, () -> AgentSettings.parse("connect.burst=4"))
                        .getMessage());
    }

    @Test
    void aConnectThatWouldWaitPastTheCapGoesAheadAndIsCounted() {
        ConnectPacer pacer = new ConnectPacer(1, 1, 0, AgentLog.create());
        pacer.pace(); // the first takes the only permit at once
        pacer.pace(); // the next would wait about a second, past a cap of 0
        assertEquals(2, pacer.pacedConnects());
        assertEquals(1, pacer.cappedConnects());
        assertEquals(0.0, pacer.waitedSeconds());
    }
}
