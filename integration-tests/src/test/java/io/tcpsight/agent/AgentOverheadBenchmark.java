package io.tcpsight.agent;

import io.tcpsight.lab.BenchmarkJit;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.LabPrerequisites;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Broker throughput, CPU and startup with and without the agent, runs interleaved so that the
 * machine's noise hits both alike; reports medians and ratios. Not part of mvn verify (its name
 * is not *IT); run it with:
 * mvn -B verify -pl integration-tests -am -Dit.test=AgentOverheadBenchmark -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
 */
class AgentOverheadBenchmark {
    private static final int ROUNDS = Integer.getInteger("rounds", 5);
    private static final int RECORDS = Integer.getInteger("records", 500_000);
    private static final long TICKS_PER_SECOND = 100;

    @Test
    void brokerWithAndWithoutTheAgent() throws Exception {
        BenchmarkJit.requireFullJit();
        LabPrerequisites.requireKafkaRuntime();
        Map<Boolean, List<double[]>> results = Map.of(false, new ArrayList<>(), true, new ArrayList<>());
        for (int round = 0; round < ROUNDS; round++) {
            for (boolean agent : new boolean[] {round % 2 == 0, round % 2 != 0}) {
                results.get(agent).add(run(agent));
            }
        }
        String[] names = {"startup to listening s", "produce MB/s", "consume MB/s", "broker CPU s per GB"};
        StringBuilder table = new StringBuilder(
                "| measure | without agent (median) | with agent (median) | with / without |\n|---|---:|---:|---:|\n");
        for (int i = 0; i < names.length; i++) {
            double without = median(results.get(false), i);
            double with = median(results.get(true), i);
            table.append(String.format("| %s | %.3f | %.3f | %.3f |%n", names[i], without, with, with / without));
        }
        List<Double> shares = new ArrayList<>();
        for (double[] run : results.get(true)) {
            shares.add(run[4]);
        }
        Collections.sort(shares);
        table.append(String.format(
                "| agent threads' share of broker CPU | | %.3f %% (max %.3f %%) | |%n",
                100 * shares.get(shares.size() / 2), 100 * shares.get(shares.size() - 1)));
        System.out.println(
                "agent overhead, " + ROUNDS + " interleaved rounds of " + RECORDS + " x 1000-byte records:\n" + table);
        for (boolean agent : new boolean[] {false, true}) {
            for (double[] run : results.get(agent)) {
                System.out.println((agent ? "with   " : "without") + " " + Arrays.toString(run));
            }
        }
    }

    private static double median(List<double[]> runs, int column) {
        List<Double> values = new ArrayList<>();
        for (double[] run : runs) {
            values.add(run[column]);
        }
        Collections.sort(values);
        return values.get(values.size() / 2);
    }

    /**
     * startup seconds, produce MB/s, consume MB/s, broker CPU seconds per GB moved, and the share
     * of that CPU the agent's own threads (sampler, HTTP) used: a direct, low-noise bound where the
     * whole-broker ratios swing by 10 % from run to run on this machine.
     */
    private static double[] run(boolean agent) throws Exception {
        // no class archive: a broker with the agent maps none, so the side without must not either
        KafkaBroker.Builder builder = KafkaBroker.onLoopback().withoutSharedClasses();
        if (agent) {
            builder.agent("interval=10s");
        }
        try (KafkaBroker broker = builder.start()) {
            double startup = broker.secondsToListening();
            long pid = broker.process().pid();
            long cpuBefore = cpuTicks(pid);
            long agentBefore = agentThreadTicks(pid);
            String produced = tool(
                    "org.apache.kafka.tools.ProducerPerformance",
                    "--topic",
                    "bench",
                    "--num-records",
                    Integer.toString(RECORDS),
                    "--record-size",
                    "1000",
                    "--throughput",
                    "-1",
                    "--producer-props",
                    "bootstrap.servers=" + broker.bootstrapServers(),
                    "acks=1",
                    "linger.ms=5",
                    "batch.size=262144");
            Matcher producer =
                    Pattern.compile("records/sec \\(([0-9.]+) MB/sec\\)").matcher(produced);
            if (!producer.find()) {
                throw new AssertionError("no producer result in:\n" + produced);
            }
            String consumed = tool(
                    "org.apache.kafka.tools.ConsumerPerformance",
                    "--bootstrap-server",
                    broker.bootstrapServers(),
                    "--topic",
                    "bench",
                    "--messages",
                    Integer.toString(RECORDS),
                    "--timeout",
                    "60000");
            String[] lines = consumed.trim().split("\n");
            String[] values = lines[lines.length - 1].split(",\\s*");
            double consumeRate = Double.parseDouble(values[3]);
            long agentTicks = agentThreadTicks(pid) - agentBefore;
            long brokerTicks = cpuTicks(pid) - cpuBefore;
            double cpuSeconds = brokerTicks / (double) TICKS_PER_SECOND;
            double gigabytes = 2.0 * RECORDS * 1000 / 1e9;
            return new double[] {
                startup,
                Double.parseDouble(producer.group(1)),
                consumeRate,
                cpuSeconds / gigabytes,
                agentTicks / (double) brokerTicks
            };
        }
    }

    /** utime + stime of a process, in clock ticks (100 a second). */
    static long cpuTicks(long pid) throws IOException {
        return ticks(Path.of("/proc/" + pid + "/stat"));
    }

    /** utime + stime of a /proc stat file (a process's or one of its threads'). */
    private static long ticks(Path stat) throws IOException {
        return ticks(stat, true);
    }

    /** utime + stime, or stime alone (the time in the kernel), of a /proc stat file. */
    private static long ticks(Path stat, boolean user) throws IOException {
        String text = Files.readString(stat, StandardCharsets.US_ASCII);
        String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
        return (user ? Long.parseLong(fields[11]) : 0) + Long.parseLong(fields[12]);
    }

    /** utime + stime of the threads named tcpsight-* (the agent's sampler, HTTP server and starter). */
    static long agentThreadTicks(long pid) throws Exception {
        return agentThreadTicks(pid, true);
    }

    /** The same, or their stime alone: what the agent's threads spent in the kernel. */
    static long agentThreadTicks(long pid, boolean user) throws Exception {
        long total = 0;
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).startsWith("tcpsight-")) {
                        total += ticks(task.resolve("stat"), user);
                    }
                } catch (IOException exited) {
                    // a thread that ended between the listing and the read
                }
            }
        }
        return total;
    }

    private static String tool(String mainClass, String... args) throws Exception {
        List<String> command = new ArrayList<>(Arrays.asList(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-cp",
                System.getProperty("tcpsight.lab.kafka.lib") + "/*",
                mainClass));
        command.addAll(Arrays.asList(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new AssertionError(mainClass + " failed:\n" + output);
        }
        return output;
    }
}
