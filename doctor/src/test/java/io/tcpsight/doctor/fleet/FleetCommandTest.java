package io.tcpsight.doctor.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What the fleet command refuses before it asks anything, each named with its value and what is allowed. */
class FleetCommandTest {
    private static String refused(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cli =
                new CommandLine(new FleetCommand(System.out, new PrintStream(err, true, StandardCharsets.UTF_8)));
        cli.setExecutionExceptionHandler((exception, commandLine, parseResult) -> {
            commandLine.getErr().println(exception.getMessage());
            return FleetCommand.USAGE;
        });
        StringWriter text = new StringWriter();
        cli.setErr(new PrintWriter(text, true));
        assertEquals(FleetCommand.USAGE, cli.execute(args));
        return text.toString().strip();
    }

    @Test
    void badOptionsAreNamedWithWhatIsAllowed() {
        assertEquals(
                "--agent-scheme: 'ftp' is not allowed; use http or https",
                refused("--bootstrap-server", "b:9092", "--agent-scheme", "ftp"));
        assertEquals(
                "--timeout-ms: 50 is not allowed; use 100 to 300000",
                refused("--bootstrap-server", "b:9092", "--timeout-ms", "50"));
        assertTrue(refused("--bootstrap-server", "b:9092", "--agent", "x=http://h:9464")
                .startsWith("--agent: 'x' is not a node id"));
        assertTrue(refused().startsWith("--bootstrap-server: needed"));
    }

    @Test
    void aUrlWithCredentialsIsRefusedWithoutRepeatingThem() {
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> FleetCommand.url("--connect-worker", "http://admin:hunter2@connect-1:8083"));
        assertFalse(refused.getMessage().contains("hunter2"), refused.getMessage());
        assertTrue(refused.getMessage().startsWith("--connect-worker: a URL with credentials is not allowed"));
    }

    @Test
    void aUrlIsAHostAndAPortWithNothingAfter() {
        assertEquals(
                URI.create("http://connect-1:8083"), FleetCommand.url("--connect-worker", "http://connect-1:8083"));
        assertEquals(URI.create("https://10.0.0.3:9465/"), FleetCommand.url("--agent", "https://10.0.0.3:9465/"));
        for (String bad :
                new String[] {"connect-1:8083", "http://connect-1", "http://connect-1:8083/connectors", "http://c:1?x=1"
                }) {
            IllegalArgumentException refused =
                    assertThrows(IllegalArgumentException.class, () -> FleetCommand.url("--connect-worker", bad));
            assertTrue(
                    refused.getMessage().startsWith("--connect-worker: '" + bad + "' is not allowed"),
                    refused.getMessage());
        }
    }
}
