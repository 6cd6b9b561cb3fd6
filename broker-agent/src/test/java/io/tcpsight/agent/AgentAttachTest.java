package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar <agent jar> attach PID key=value,...}: each refusal it can make before the JVM is
 * touched is one line and an exit code. The attach itself, from the built jar into a broker, is
 * {@code BrokerAgentIT}'s.
 */
class AgentAttachTest {
    /** Beyond Linux's largest pid_max (2^22): never a process. */
    private static final String NO_PROCESS = "999999999";

    @TempDir
    Path directory;

    @Test
    void badArgumentsAreOneLineWithTheKeyTheValueAndWhatIsAllowedAndNothingIsLoaded() throws Exception {
        String self = Long.toString(ProcessHandle.current().pid());
        Run port = run("attach", self, "port=abc,interval=10s");
        assertEquals(AgentAttach.USAGE, port.exit, port.toString());
        assertEquals(
                List.of("tcpsight attach: port=abc is not valid: a TCP port from 0 to 65535 (0 turns the HTTP endpoint"
                        + " off); nothing was loaded into pid " + self),
                port.err.lines().collect(Collectors.toList()));
        assertEquals("", port.out);

        Run unknown = run("attach", self, "colour=blue");
        assertEquals(AgentAttach.USAGE, unknown.exit, unknown.toString());
        assertTrue(
                unknown.err.startsWith("tcpsight attach: colour=blue is not valid: not a tcpsight agent setting;"
                        + " allowed: port, host,"),
                unknown.toString());
        assertEquals(1, unknown.err.lines().count(), unknown.toString());

        Run jcmdStyle = run("attach", self, "port");
        assertEquals(AgentAttach.USAGE, jcmdStyle.exit, jcmdStyle.toString());
        assertTrue(jcmdStyle.err.contains("agent argument=port is not valid: key=value pairs"), jcmdStyle.toString());
    }

    @Test
    void aCommandLineWithoutACommandOrAProcessIdIsAUsageError() throws Exception {
        for (String[] args : new String[][] {{}, {"run"}, {"attach"}, {"attach", "abc"}, {"attach", "-1"}}) {
            Run run = run(args);
            assertEquals(AgentAttach.USAGE, run.exit, run.toString());
            assertEquals(1, run.err.lines().count(), run.toString());
            assertTrue(run.err.contains(AgentAttach.USAGE_LINE), run.toString());
        }
        assertTrue(run("attach", "abc").err.startsWith("tcpsight attach: PID=abc is not valid: the process id of"));
        assertTrue(run("run").err.contains("this jar is a -javaagent"));
        Run help = run("--help");
        assertEquals(AgentAttach.STARTED, help.exit, help.toString());
        assertTrue(help.out.startsWith("usage: " + AgentAttach.USAGE_LINE), help.toString());
    }

    @Test
    void aProcessThatDoesNotExistIsSaidSo() throws Exception {
        Run gone = run("attach", NO_PROCESS, "port=0");
        assertEquals(AgentAttach.FAILED, gone.exit, gone.toString());
        assertEquals(
                List.of("tcpsight attach: could not attach to pid " + NO_PROCESS + ": no such process"),
                gone.err.lines().collect(Collectors.toList()));
    }

    /**
     * The Attach API signals the process it is given, and SIGQUIT ends one that is not a JVM. A child
     * of this JVM inherits SIGQUIT blocked, as the JVM's threads have it: env unblocks it, so that
     * the signal would end the process as it ends one started from a shell.
     */
    @Test
    void aProcessThatIsNotAJvmIsLeftAlone() throws Exception {
        Process sleep = new ProcessBuilder("env", "--default-signal=QUIT", "sleep", "60").start();
        try {
            Run refused = run("attach", Long.toString(sleep.pid()), "port=0");
            Thread.sleep(300);
            assertTrue(sleep.isAlive(), "the process is untouched: " + refused);
            assertEquals(AgentAttach.FAILED, refused.exit, refused.toString());
            assertTrue(
                    refused.err.startsWith(
                            "tcpsight attach: could not attach to pid " + sleep.pid() + ": it is not a JVM"),
                    refused.toString());
            assertTrue(refused.err.contains("nothing was sent to it"), refused.toString());
        } finally {
            sleep.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertEquals(
                Optional.empty(), AgentAttach.notAJvm(ProcessHandle.current().pid()), "this JVM is one");
    }

    /** A runtime made without jdk.attach (jlink's JREs), as the jar's main class runs there. */
    @Test
    void aJavaWithoutTheAttachApiIsSaidSo() throws Exception {
        Process child = new ProcessBuilder(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--limit-modules",
                        "java.se",
                        "-cp",
                        System.getProperty("java.class.path"),
                        TcpsightAgent.class.getName(),
                        "attach",
                        Long.toString(ProcessHandle.current().pid()),
                        "port=0"))
                .start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), err);
        assertEquals(AgentAttach.FAILED, child.exitValue(), out + err);
        assertEquals(1, err.lines().count(), err);
        assertTrue(
                err.startsWith("tcpsight attach: this Java has no Attach API (the jdk.attach module is not among"),
                err);
        assertTrue(err.contains("run the jar with a JDK's java"), err);
    }

    @Test
    void theJdksReasonsAreExplainedInTheCasesOperatorsMeet() {
        assertEquals("no such process", AgentAttach.attachFailure("No such process"));
        assertTrue(AgentAttach.attachFailure("The VM does not support the attach mechanism")
                .contains("the JVM runs with -XX:+DisableAttachMechanism, which refuses every attach"));
        assertTrue(AgentAttach.attachFailure("Permission denied").contains("as the JVM's user"));
        assertTrue(
                AgentAttach.loadFailure("Dynamic agent loading is not enabled").contains("JEP 451"));
        assertEquals("something else", AgentAttach.loadFailure("something else"));
    }

    private Run run(String... args) throws Exception {
        Path jar = directory.resolve("tcpsight-broker-agent-test.jar");
        if (!Files.exists(jar)) {
            Files.createFile(jar);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = AgentAttach.run(args, Optional.of(jar), outStream, errStream);
        }
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static final class Run {
        final int exit;
        final String out;
        final String err;

        Run(int exit, String out, String err) {
            this.exit = exit;
            this.out = out;
            this.err = err;
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }
}
