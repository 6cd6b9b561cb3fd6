package io.tcpsight.doctor;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tcpsight attach PID [key=value,...]}: an alias of the broker agent's own {@code java -jar
 * tcpsight-broker-agent-<version>.jar attach PID [key=value,...]}, run with this JVM's java. The
 * agent's jar judges the arguments, attaches, loads itself and says what happened; this command
 * finds the jar and passes its output and exit code on.
 */
@Command(
        name = "attach",
        mixinStandardHelpOptions = true,
        description = {
            "Loads the tcpsight broker agent into a running JVM (a broker, a Connect worker, MirrorMaker 2) with no restart,"
                    + " and prints its endpoint or why it did not start.",
            "The same as java -jar tcpsight-broker-agent-<version>.jar attach PID [KEY=VALUE,...], which needs only the"
                    + " agent's jar (docs/broker-agent.md).",
            "Run it as the JVM's user, from its host or container, on a JDK (the Attach API is the JDK's jdk.attach module).",
            "Exit codes: 0 the agent started, 2 usage error, 3 it did not start (the reason is printed)."
        })
final class AttachCommand implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;

    @Parameters(index = "0", paramLabel = "PID", description = "The process id of the JVM.")
    private String pid;

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
    public Integer call() throws IOException, InterruptedException {
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
        Process agent = new ProcessBuilder(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-jar",
                        jar.toAbsolutePath().toString(),
                        "attach",
                        pid,
                        arguments))
                .start();
        agent.getOutputStream().close();
        Thread copier = new Thread(() -> copy(agent.getInputStream(), out), "tcpsight-attach-stdout");
        copier.start();
        try {
            copy(agent.getErrorStream(), err);
            int exit = agent.waitFor();
            copier.join();
            return exit;
        } finally {
            agent.destroy();
        }
    }

    private static void copy(InputStream from, PrintStream to) {
        try (InputStream in = from) {
            in.transferTo(to);
            to.flush();
        } catch (IOException failed) {
            throw new UncheckedIOException(failed);
        }
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
