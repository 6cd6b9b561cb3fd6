package io.tcpsight.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process the lab started, with its output in a log file under target/lab-work. Closing it
 * stops it by PID: SIGTERM, then SIGKILL after a grace period.
 */
public final class LabProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path log;

    private LabProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    public static LabProcess start(String name, List<String> command) throws IOException {
        Files.createDirectories(LabPaths.work());
        Path log = LabPaths.work().resolve(name + ".log");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        return new LabProcess(name, process, log);
    }

    public long pid() {
        return process.pid();
    }

    public Process process() {
        return process;
    }

    /** Writes a line to the process's standard input (a peer held until the test says so). */
    public void sendLine(String line) throws IOException {
        process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
    }

    public String output() {
        try {
            return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
        } catch (IOException unreadable) {
            return "(" + log + " unreadable: " + unreadable + ")";
        }
    }

    /**
     * For a failure message about a JVM that stopped answering: asks it for a thread dump (SIGQUIT,
     * which a JVM answers on its standard output and goes on) and returns its output once the dump is
     * in it, or after 3 s. Where it waits, and on what, is the cause a test could not see from outside.
     */
    public String outputWithThreadDump() {
        try {
            new ProcessBuilder("kill", "-QUIT", Long.toString(process.pid()))
                    .start()
                    .waitFor();
            long deadline = System.nanoTime() + 3_000_000_000L;
            while (System.nanoTime() < deadline && !output().contains("Full thread dump")) {
                Thread.sleep(100);
            }
            Thread.sleep(500); // the rest of the dump
        } catch (IOException notAsked) {
            return output() + "\n(no thread dump: " + notAsked + ")";
        } catch (InterruptedException stopped) {
            Thread.currentThread().interrupt();
            return output() + "\n(no thread dump: interrupted)";
        }
        return output();
    }

    /** Waits until the output has a line matching regex; returns the match. */
    public Matcher awaitLine(String regex, Duration timeout) throws InterruptedException {
        Pattern pattern = Pattern.compile(regex, Pattern.MULTILINE);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher matcher = pattern.matcher(output());
            if (matcher.find()) {
                return matcher;
            }
            if (!process.isAlive()) {
                break;
            }
            Thread.sleep(50);
        }
        Matcher matcher = pattern.matcher(output());
        if (matcher.find()) {
            return matcher;
        }
        throw new AssertionError(name + " (pid " + process.pid()
                + (process.isAlive() ? ", running" : ", exited " + process.exitValue()) + ") printed no line matching /"
                + regex + "/ within " + timeout + ". Output:\n" + tail(output()));
    }

    /** Waits for the process to exit by itself; returns its exit code. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " did not exit within " + timeout + ". Output:\n" + tail(output()));
        }
        return process.exitValue();
    }

    private static String tail(String text) {
        return text.length() > 4000 ? "..." + text.substring(text.length() - 4000) : text;
    }

    /**
     * Ends the process at once (SIGKILL) and waits for it: for a lab being torn down, where a
     * graceful stop only costs time (a broker's controlled shutdown waits for a quorum the same
     * teardown is stopping).
     */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException interrupted) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
