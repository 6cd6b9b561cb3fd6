package io.tcpsight.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/** Runs `tcpsight doctor` (or another of its commands) with the unzipped distribution's bin/tcpsight, as an operator would, and keeps what it printed. */
public final class LabDoctor {
    /** One run: exit code, stdout, stderr, and how long the process ran, from its start to its exit. */
    public record Run(int exit, String out, String err, Duration took) {
        @Override
        public String toString() {
            return "exit " + exit + " after " + took.toMillis() + " ms\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    private LabDoctor() {}

    public static Run run(Duration timeout, String... args) throws IOException, InterruptedException {
        List<String> doctor = new ArrayList<>(List.of("doctor"));
        doctor.addAll(List.of(args));
        return command(timeout, doctor.toArray(new String[0]));
    }

    /**
     * `tcpsight doctor ARGS...` on the lab's client side: in the client's namespace where it has one,
     * so that the client host's sysctls are the namespace's own, which the test may change.
     */
    public static Run runOnClientSide(KernelLab lab, Duration timeout, String... args)
            throws IOException, InterruptedException {
        List<String> doctor = new ArrayList<>(List.of("doctor"));
        doctor.addAll(List.of(args));
        return command(lab::onClientSide, timeout, doctor.toArray(new String[0]));
    }

    /** `tcpsight COMMAND ARGS...`, e.g. {@code attach PID port=9464}. */
    public static Run command(Duration timeout, String... args) throws IOException, InterruptedException {
        return command(command -> command, timeout, args);
    }

    private static Run command(UnaryOperator<List<String>> where, Duration timeout, String... args)
            throws IOException, InterruptedException {
        LabPrerequisites.requireDoctor();
        // as the docs run it: the distribution's launcher, on the Java JAVA_HOME names (the lab's own)
        List<String> command = new ArrayList<>(List.of(LabPaths.doctorLauncher().toString()));
        command.addAll(List.of(args));
        return process("tcpsight " + String.join(" ", args), where.apply(command), timeout, environment -> {
            environment.put("JAVA_HOME", System.getProperty("java.home"));
            environment.remove("TCPSIGHT_JAVA_OPTS");
        });
    }

    /**
     * Runs {@code command} to its exit within {@code timeout}, its environment as {@code environment}
     * leaves it, and keeps what it printed; one that does not finish is killed and fails the test with
     * its standard error.
     */
    public static Run process(
            String what, List<String> command, Duration timeout, Consumer<Map<String, String>> environment)
            throws IOException, InterruptedException {
        Files.createDirectories(LabPaths.work());
        Path out = Files.createTempFile(LabPaths.work(), "process-", ".out");
        Path err = Files.createTempFile(LabPaths.work(), "process-", ".err");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        environment.accept(builder.environment());
        long started = System.nanoTime();
        Process process = builder.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(what + " did not finish within " + timeout + "\n" + Files.readString(err));
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        return new Run(
                process.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8),
                took);
    }
}
