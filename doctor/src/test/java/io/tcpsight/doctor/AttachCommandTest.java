package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * tcpsight attach is an alias of the agent jar's own attach: it runs {@code java -jar <agent jar>
 * attach PID ARGUMENTS} and passes the output and the exit code on. A stand-in jar whose main class
 * echoes what it was given shows both; the real jar's attach is BrokerAgentIT's.
 */
class AttachCommandTest {
    @TempDir
    Path directory;

    @Test
    void theAgentJarRunsWithTheArgumentsWholeAndItsOutputAndExitCodeComeBack() throws IOException {
        Path jar = standIn();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = TcpsightCli.run(
                new String[] {"attach", "4242", "port=9464,interval=10s", "--agent-jar", jar.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(3, exit, err.toString(StandardCharsets.UTF_8));
        assertEquals("attach|4242|port=9464,interval=10s\n", out.toString(StandardCharsets.UTF_8));
        assertEquals("the stand-in's reason\n", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aMissingAgentJarIsAUsageError() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = TcpsightCli.run(
                new String[] {
                    "attach",
                    "4242",
                    "--agent-jar",
                    directory.resolve("none.jar").toString()
                },
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(ExitCodes.USAGE, exit);
        assertTrue(
                err.toString(StandardCharsets.UTF_8).contains("is not a file"), err.toString(StandardCharsets.UTF_8));
    }

    /** A jar whose main class is {@link Echo}, from this module's test classes. */
    private Path standIn() throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Echo.class.getName());
        manifest.getMainAttributes()
                .put(
                        Attributes.Name.CLASS_PATH,
                        Path.of("target", "test-classes")
                                .toAbsolutePath()
                                .toUri()
                                .toString());
        Path jar = directory.resolve("tcpsight-broker-agent-9.9.9.jar");
        try (JarOutputStream ignored = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            // the manifest is the whole jar
        }
        return jar;
    }

    /** Prints its arguments joined by '|' and one line on stderr, and exits 3. */
    static final class Echo {
        private Echo() {}

        public static void main(String[] args) {
            System.out.println(String.join("|", args));
            System.err.println("the stand-in's reason");
            System.exit(3);
        }
    }
}
