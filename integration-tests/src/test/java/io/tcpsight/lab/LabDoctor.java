package io.tcpsight.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs `tcpsight doctor` (or another of its commands) with the unzipped distribution's bin/tcpsight, as an operator would, and keeps what it printed. */
public final class LabDoctor {
    /** One run: exit code, stdout, stderr, and how long the launcher ran, from its start to its exit (zero: not timed). */
    public record Run(int exit, String out, String err, Duration took) {
        public Run(int exit, String out, String err) {
            this(exit, out, err, Duration.ZERO);
        }

        @Override
        public String toString() {
            return "exit " + exit + (took.isZero() ? "" : " after " + took.toMillis() + " ms") + "\n--- stdout\n" + out
                    + "\n--- stderr\n" + err;
        }
    }

    private LabDoctor() {}

    public static Run run(Duration timeout, String... args) throws IOException, InterruptedException {
        List<String> doctor = new ArrayList<>(List.of("doctor"));
        doctor.addAll(List.of(args));
        return command(timeout, doctor.toArray(new String[0]));
    }

    /** `tcpsight COMMAND ARGS...`, e.g. {@code attach PID port=9464}. */
    public static Run command(Duration timeout, String... args) throws IOException, InterruptedException {
        LabPrerequisites.requireDoctor();
        Files.createDirectories(LabPaths.work());
        Path out = Files.createTempFile(LabPaths.work(), "doctor-", ".out");
        Path err = Files.createTempFile(LabPaths.work(), "doctor-", ".err");
        // as the docs run it: the distribution's launcher, on the Java JAVA_HOME names (the lab's own)
        List<String> command = new ArrayList<>(List.of(LabPaths.doctorLauncher().toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().remove("TCPSIGHT_JAVA_OPTS");
        long started = System.nanoTime();
        Process process = builder.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("tcpsight " + String.join(" ", args) + " did not finish within " + timeout + "\n"
                    + Files.readString(err));
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        return new Run(
                process.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8),
                took);
    }
}
