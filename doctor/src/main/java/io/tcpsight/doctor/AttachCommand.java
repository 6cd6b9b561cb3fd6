package io.tcpsight.doctor;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tcpsight attach PID [key=value,...]}: loads the broker agent into a running JVM through
 * the Attach API, with its arguments whole (jcmd's parser splits them at '='), and says what
 * happened: the agent's endpoint, or why it did not start.
 */
@Command(
        name = "attach",
        mixinStandardHelpOptions = true,
        description = {
            "Loads the tcpsight broker agent into a running JVM (a broker, a Connect worker, MirrorMaker 2) with no restart,"
                    + " and prints its endpoint or why it did not start.",
            "Run it as the JVM's user, from its host or container, on a JDK (the Attach API is the JDK's jdk.attach module).",
            "Exit codes: 0 the agent started, 2 usage error, 3 it did not start (the reason is printed)."
        })
final class AttachCommand implements Callable<Integer> {
    /** The agent's own report of its start (AgentStartup.STATE_PROPERTY). */
    static final String STATE_PROPERTY = "tcpsight.agent.state";

    private static final long START_WAIT_MILLIS = 20_000;

    private final PrintStream out;
    private final PrintStream err;

    @Parameters(index = "0", paramLabel = "PID", description = "The process id of the JVM.")
    private long pid;

    @Parameters(
            index = "1",
            arity = "0..1",
            paramLabel = "KEY=VALUE[,KEY=VALUE...]",
            description =
                    "The agent's arguments, as after -javaagent:jar= (docs/broker-agent.md). Default: the agent's defaults.")
    private String arguments = "";

    @Option(
            names = "--agent-jar",
            paramLabel = "FILE",
            description = "The broker agent's jar. Default: the tcpsight-broker-agent*.jar beside this jar.")
    private Path agentJar;

    AttachCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        Path jar;
        try {
            jar = agentJar != null ? agentJar : besideThisJar().orElse(null);
        } catch (IOException unreadable) {
            jar = null;
        }
        if (jar == null || !Files.isRegularFile(jar)) {
            err.println("tcpsight attach: --agent-jar=" + (jar == null ? "(none beside this jar)" : jar)
                    + " is not a file: give the path of tcpsight-broker-agent-<version>.jar");
            return ExitCodes.USAGE;
        }
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException | IOException refused) {
            err.println("tcpsight attach: could not attach to pid " + pid + ": " + attachFailure(refused));
            return ExitCodes.FAILED;
        } catch (NoClassDefFoundError noAttachModule) {
            err.println("tcpsight attach: this Java has no Attach API (the jdk.attach module): run it on a JDK");
            return ExitCodes.FAILED;
        }
        try {
            String before = vm.getSystemProperties().getProperty(STATE_PROPERTY);
            if (before != null && before.startsWith("started")) {
                err.println("tcpsight attach: the agent already runs in pid " + pid + " (" + before
                        + "); nothing was changed");
                return ExitCodes.FAILED;
            }
            vm.loadAgent(jar.toAbsolutePath().toString(), arguments);
            long deadline = System.currentTimeMillis() + START_WAIT_MILLIS;
            while (System.currentTimeMillis() < deadline) {
                String state = vm.getSystemProperties().getProperty(STATE_PROPERTY);
                if (state != null && state.startsWith("started")) {
                    out.println("tcpsight agent " + state + " in pid " + pid);
                    return ExitCodes.HEALTHY;
                }
                if (state != null) {
                    err.println("tcpsight attach: the agent did not start in pid " + pid + ": " + state);
                    return ExitCodes.FAILED;
                }
                Thread.sleep(100);
            }
            err.println("tcpsight attach: the agent was loaded into pid " + pid + " but did not say within "
                    + START_WAIT_MILLIS / 1000 + " s that it started: see the JVM's log");
            return ExitCodes.FAILED;
        } catch (AgentLoadException | AgentInitializationException | IOException refused) {
            err.println("tcpsight attach: pid " + pid + " did not load the agent: " + loadFailure(refused));
            return ExitCodes.FAILED;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return ExitCodes.FAILED;
        } finally {
            try {
                vm.detach();
            } catch (IOException gone) {
                // the JVM exited meanwhile: nothing to detach from
            }
        }
    }

    /** What an attach failure means, in the cases operators meet. */
    static String attachFailure(Exception refused) {
        String message = String.valueOf(refused.getMessage());
        if (message.contains("No such process")) {
            return "no such process";
        }
        if (message.contains("well-known file") || message.contains("Permission denied")) {
            return message + " (run tcpsight attach as the JVM's user)";
        }
        if (message.contains("does not support the attach mechanism")) {
            return message
                    + " (the JVM runs with -XX:+DisableAttachMechanism, which refuses every attach: start it with"
                    + " the agent in -javaagent instead)";
        }
        if (message.contains("Unable to open socket file") || message.contains("not responding")) {
            return message + " (run it as the JVM's user, and in a container from inside it: the attach socket is"
                    + " in the JVM's /tmp; a JVM started with -XX:+DisableAttachMechanism refuses every attach)";
        }
        return message;
    }

    /** What a load failure means; JEP 451's switch among them. */
    static String loadFailure(Exception refused) {
        String message = String.valueOf(refused.getMessage());
        if (message.contains("EnableDynamicAgentLoading")
                || message.toLowerCase(Locale.ROOT).contains("dynamic")) {
            return message + " (the JVM runs with -XX:-EnableDynamicAgentLoading, JEP 451: start it with the agent"
                    + " in -javaagent instead)";
        }
        return message;
    }

    /** The broker agent's jar in this jar's directory, as the distribution puts them. */
    private static Optional<Path> besideThisJar() throws IOException {
        Path self;
        try {
            self = Path.of(AttachCommand.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException | RuntimeException unknown) {
            return Optional.empty();
        }
        Path directory = Files.isDirectory(self) ? self : self.getParent();
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(directory, "tcpsight-broker-agent*.jar")) {
            Iterator<Path> found = jars.iterator();
            return found.hasNext() ? Optional.of(found.next()) : Optional.empty();
        }
    }
}
