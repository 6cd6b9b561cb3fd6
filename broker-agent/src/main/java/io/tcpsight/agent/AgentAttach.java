package io.tcpsight.agent;

import io.tcpsight.internal.config.InvalidSettingException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code java -jar tcpsight-broker-agent-<version>.jar attach PID [key=value,...]}: loads this jar
 * into a running JVM through the JDK's Attach API, with its arguments whole (jcmd's parser splits
 * them at '='), and says what happened: the agent's endpoint, or why it did not start. Nothing
 * but the agent's jar and a JDK is needed on the host. Every refusal is one line on stderr; what
 * can be judged before the JVM is touched is: the arguments (the agent's own checks, {@link
 * AgentSettings#check}), the Attach API's presence, and that the process is a JVM (the Attach
 * API signals any process it is given, and SIGQUIT ends one that is not a JVM).
 */
final class AgentAttach {
    /** The agent started in the JVM. */
    static final int STARTED = 0;
    /** A usage error: bad arguments, no PID; nothing was sent to any process. */
    static final int USAGE = 2;
    /** The agent did not start (no such process, not a JVM, no Attach API, refused, disabled); the reason is printed. */
    static final int FAILED = 3;

    static final String USAGE_LINE = "java -jar tcpsight-broker-agent-<version>.jar attach PID [key=value,...]";

    private static final String PREFIX = "tcpsight attach: ";
    private static final Pattern PID = Pattern.compile("^[1-9][0-9]{0,9}$");
    private static final long START_WAIT_MILLIS = 20_000;

    private AgentAttach() {}

    /**
     * Runs the command line {@code args} with the agent jar {@code agentJar} (the jar this class was
     * loaded from) and returns the exit code.
     */
    static int run(String[] args, Optional<Path> agentJar, PrintStream out, PrintStream err) {
        if (args.length == 1 && (args[0].equals("-h") || args[0].equals("--help") || args[0].equals("help"))) {
            out.println("usage: " + USAGE_LINE);
            out.println("Loads the tcpsight agent into the running JVM PID (a broker, a Connect worker, MirrorMaker 2)"
                    + " with the arguments of -javaagent:jar=..., on a JDK, as the JVM's user;"
                    + " exit 0 when it started, 2 for a usage error, 3 when it did not start (docs/broker-agent.md).");
            return STARTED;
        }
        if (args.length == 0 || !args[0].equals("attach") || args.length > 3) {
            err.println(PREFIX
                    + (args.length == 0 || args[0].equals("attach")
                            ? "give the JVM's process id and the agent's arguments: " + USAGE_LINE
                            : "unknown command " + args[0] + ": this jar is a -javaagent, and as a program it only"
                                    + " attaches: " + USAGE_LINE));
            return USAGE;
        }
        if (args.length < 2 || !PID.matcher(args[1]).matches()) {
            err.println(PREFIX + "PID=" + (args.length < 2 ? "" : args[1])
                    + " is not valid: the process id of a running JVM (pgrep -f kafka.Kafka finds a broker's): "
                    + USAGE_LINE);
            return USAGE;
        }
        long pid = Long.parseLong(args[1]);
        String arguments = args.length == 3 ? args[2] : "";
        try {
            AgentSettings.check(arguments);
        } catch (InvalidSettingException invalid) {
            err.println(PREFIX + invalid.getMessage() + "; nothing was loaded into pid " + pid);
            return USAGE;
        }
        if (ModuleLayer.boot().findModule("jdk.attach").isEmpty()) {
            err.println(noAttachApi());
            return FAILED;
        }
        if (agentJar.isEmpty() || !Files.isRegularFile(agentJar.get())) {
            err.println(PREFIX + "run it from the agent's jar, which is what it loads: " + USAGE_LINE);
            return USAGE;
        }
        Optional<String> notJvm = notAJvm(pid);
        if (notJvm.isPresent()) {
            err.println(PREFIX + "could not attach to pid " + pid + ": " + notJvm.get());
            return FAILED;
        }
        try {
            return load(pid, agentJar.get().toAbsolutePath().toString(), arguments, out, err);
        } catch (LinkageError noAttachModule) {
            err.println(noAttachApi());
            return FAILED;
        }
    }

    /** The agent's jar: the one this class was loaded from, when it is a file. */
    static Optional<Path> jarOf(Class<?> type) {
        try {
            Path location = Paths.get(
                    type.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Files.isRegularFile(location) ? Optional.of(location) : Optional.empty();
        } catch (URISyntaxException | RuntimeException unknown) {
            return Optional.empty();
        }
    }

    private static int load(long pid, String jar, String arguments, PrintStream out, PrintStream err) {
        AttachApi vm;
        try {
            vm = AttachApi.attach(pid);
        } catch (IOException refused) {
            err.println(PREFIX + "could not attach to pid " + pid + ": " + attachFailure(refused.getMessage()));
            return FAILED;
        }
        try (AttachApi attached = vm) {
            Optional<String> before = attached.property(AgentStartup.STATE_PROPERTY);
            if (before.isPresent() && before.get().startsWith("started")) {
                err.println(PREFIX + "the agent already runs in pid " + pid + " (" + before.get()
                        + "); nothing was changed");
                return FAILED;
            }
            attached.loadAgent(jar, arguments);
            long deadline = System.currentTimeMillis() + START_WAIT_MILLIS;
            while (System.currentTimeMillis() < deadline) {
                Optional<String> state = attached.property(AgentStartup.STATE_PROPERTY);
                if (state.isPresent() && state.get().startsWith("started")) {
                    out.println("tcpsight agent " + state.get() + " in pid " + pid);
                    return STARTED;
                }
                if (state.isPresent()) {
                    err.println(PREFIX + "the agent did not start in pid " + pid + ": " + state.get());
                    return FAILED;
                }
                Thread.sleep(100);
            }
            err.println(PREFIX + "the agent was loaded into pid " + pid + " but did not say within "
                    + START_WAIT_MILLIS / 1000 + " s that it started: see the JVM's log");
            return FAILED;
        } catch (IOException refused) {
            err.println(PREFIX + "pid " + pid + " did not load the agent: " + loadFailure(refused.getMessage()));
            return FAILED;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return FAILED;
        }
    }

    private static String noAttachApi() {
        return PREFIX + "this Java has no Attach API (the jdk.attach module is not among the modules "
                + System.getProperty("java.home") + " runs with): run the jar with a JDK's java, e.g. the broker's own"
                + " if it is a JDK (readlink /proc/PID/exe)";
    }

    /**
     * Why the process is certainly not a JVM, when it is not: gone, or no JVM library in its memory
     * map. Nothing when its map cannot be read (another user's process): the Attach API then says why.
     */
    static Optional<String> notAJvm(long pid) {
        Path maps = Paths.get("/proc", Long.toString(pid), "maps");
        if (!Files.isDirectory(maps.getParent())) {
            return Optional.of("no such process");
        }
        try (BufferedReader lines = Files.newBufferedReader(maps, StandardCharsets.UTF_8)) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.contains("/libjvm.so") || line.contains("/libj9vm")) {
                    return Optional.empty();
                }
            }
        } catch (IOException unreadable) {
            return Optional.empty();
        }
        return Optional.of("it is not a JVM (no libjvm.so in " + maps
                + "), and nothing was sent to it: give a Java process's id (pgrep -f kafka.Kafka finds a broker's)");
    }

    /** What an attach failure means, in the cases operators meet. */
    static String attachFailure(String reported) {
        String message = String.valueOf(reported);
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
    static String loadFailure(String reported) {
        String message = String.valueOf(reported);
        if (message.contains("EnableDynamicAgentLoading")
                || message.toLowerCase(Locale.ROOT).contains("dynamic")) {
            return message + " (the JVM runs with -XX:-EnableDynamicAgentLoading, JEP 451: start it with the agent"
                    + " in -javaagent instead)";
        }
        return message;
    }
}
