package io.tcpsight.agent;

import io.tcpsight.lab.BenchmarkJit;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KafkaHello;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.PrometheusText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What one round of the agent costs a broker that holds many idle connections: the CPU of the
 * agent's own threads over a run of rounds, per round and per connection, beside the round's
 * duration as the agent reports it. Optionally records a JFR profile of the run
 * ({@code -Djfr=/path/file.jfr}) to see where a round goes. Not part of mvn verify (its name is
 * not *IT); run it with:
 * mvn -B verify -pl integration-tests -am -Dit.test=RoundCostBenchmark -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
 * (-Dconnections=15000 -Dclients=3000 -Drounds=20 are the defaults). Two builds side by side:
 * -Dagents=old.jar,new.jar -Drepeats=2 runs them alternately, a fresh broker each time. The heap a
 * tracked connection costs: -Dagents=none,this -Dheap=true, the broker's live heap after a full
 * collection with the same connections held, without the agent and with it
 * ({@code -Dhistograms=DIR} keeps each broker's class histogram there). What a round costs each
 * connection beyond its fixed part: -Dconnections=5000,15000 runs each count in turn in the same run
 * (client.ids a fifth of the connections unless -Dclients is given) and prints, per jar, the growth
 * between the counts a connection, the fixed part a round and what that makes of 100,000.
 */
class RoundCostBenchmark {
    /** The counts of idle connections to hold, each in turn ({@code -Dconnections=5000,15000}). */
    private static final List<Integer> COUNTS = counts(System.getProperty("connections", "15000"));

    private static final Integer GIVEN_CLIENT_IDS = Integer.getInteger("clients");
    private static final int ROUNDS = Integer.getInteger("rounds", 20);
    private static final int INTERVAL_SECONDS = 2;
    private static final double TICKS_PER_SECOND = 100;

    /** Agent jars to compare, alternately ({@code -Dagents=old.jar,new.jar}); by default this build's. */
    private static final String AGENTS = System.getProperty("agents", "");

    private static final int REPEATS = Integer.getInteger("repeats", 1);

    private static final boolean HEAP = Boolean.getBoolean("heap");
    private static final Path NO_AGENT = Path.of("none");
    private static final Path THIS_BUILD = Path.of("this");

    @Test
    void oneRoundAtManyIdleConnections() throws Exception {
        BenchmarkJit.requireFullJit();
        LabPrerequisites.requireKafkaRuntime();
        List<Path> jars = new ArrayList<>();
        for (String jar : AGENTS.split(",")) {
            if (!jar.isBlank()) {
                jars.add(agentJar(jar.trim()));
            }
        }
        if (jars.isEmpty()) {
            jars.add(THIS_BUILD);
        }
        if (HEAP && COUNTS.size() > 1) {
            throw new IllegalArgumentException(
                    "-Dheap=true takes one count of connections, not -Dconnections=" + COUNTS);
        }
        int connections = COUNTS.get(0);
        List<String> results = new ArrayList<>();
        List<Long> baselines = new ArrayList<>(); // the live heap without the agent, this run's
        Map<Path, List<Long>> heaps = new LinkedHashMap<>();
        // per jar and count, the CPU of a round in each repeat
        Map<Path, Map<Integer, List<Double>>> cpu = new LinkedHashMap<>();
        for (int repeat = 0; repeat < REPEATS; repeat++) {
            for (int count : COUNTS) {
                for (Path jar : jars) {
                    long[] heap = new long[1];
                    double[] cpuPerRound = new double[1];
                    results.add(jar + ": "
                            + (jar.equals(NO_AGENT)
                                    ? runWithoutAgent(count, heap)
                                    : run(jar.equals(THIS_BUILD) ? null : jar, count, heap, cpuPerRound)));
                    if (HEAP) {
                        (jar.equals(NO_AGENT) ? baselines : heaps.computeIfAbsent(jar, any -> new ArrayList<>()))
                                .add(heap[0]);
                    }
                    if (!jar.equals(NO_AGENT)) {
                        cpu.computeIfAbsent(jar, any -> new LinkedHashMap<>())
                                .computeIfAbsent(count, any -> new ArrayList<>())
                                .add(cpuPerRound[0]);
                    }
                }
            }
        }
        System.out.println("round cost, side by side in one run:\n" + String.join("\n", results));
        if (COUNTS.size() > 1) {
            System.out.print(slopes(cpu));
        }
        if (HEAP && !baselines.isEmpty()) {
            long baseline = Math.round(
                    baselines.stream().mapToLong(Long::longValue).average().orElse(0));
            StringBuilder perConnection = new StringBuilder(String.format(
                    "the heap a connection costs, against this run's baseline without the agent (%.2f MB, %s):%n",
                    baseline / 1e6, baselines));
            heaps.forEach((jar, live) -> {
                List<Long> bytes = new ArrayList<>();
                live.forEach(total -> bytes.add((total - baseline) / connections));
                perConnection.append(String.format("  %s: %s bytes a connection%n", jar, bytes));
            });
            System.out.print(perConnection);
        }
    }

    /**
     * An agent jar as given: absolute, or relative to where Maven runs the test (this module) or to the
     * repository (as docs/benchmarks.md writes it, broker-agent/target/...).
     */
    private static Path agentJar(String given) {
        Path jar = Path.of(given);
        if (jar.equals(NO_AGENT) || jar.equals(THIS_BUILD) || jar.isAbsolute() || Files.exists(jar)) {
            return jar;
        }
        Path fromRepository = Path.of("..").resolve(jar).toAbsolutePath().normalize();
        if (!Files.exists(fromRepository)) {
            throw new IllegalArgumentException("-Dagents: no jar at " + jar.toAbsolutePath() + " or " + fromRepository);
        }
        return fromRepository;
    }

    /**
     * Per jar, between the smallest and the largest count: what a round grows a connection (the mean CPU of a
     * round at each count), the fixed part of a round, and the round and share of a core at 100,000.
     */
    private static String slopes(Map<Path, Map<Integer, List<Double>>> cpu) {
        StringBuilder text = new StringBuilder(String.format("a round's growth between the counts, per jar:%n"));
        cpu.forEach((jar, byCount) -> {
            int low = COUNTS.stream().mapToInt(Integer::intValue).min().orElseThrow();
            int high = COUNTS.stream().mapToInt(Integer::intValue).max().orElseThrow();
            double atLow = mean(byCount.get(low));
            double atHigh = mean(byCount.get(high));
            double perConnection = (atHigh - atLow) / (high - low);
            double fixed = atLow - perConnection * low;
            double at100k = fixed + perConnection * 100_000;
            text.append(String.format(
                    "  %s: %.1f ms a round at %d (%s), %.1f ms at %d (%s): %.2f µs a connection, %.1f ms fixed; at 100,000"
                            + " %.1f ms a round, %.2f %% of a core at the default 10 s interval%n",
                    jar,
                    atLow * 1e3,
                    low,
                    milliseconds(byCount.get(low)),
                    atHigh * 1e3,
                    high,
                    milliseconds(byCount.get(high)),
                    perConnection * 1e6,
                    fixed * 1e3,
                    at100k * 1e3,
                    at100k / 10 * 100));
        });
        return text.toString();
    }

    /** Each round's CPU in milliseconds, one decimal: "15.5, 14.0". */
    private static String milliseconds(List<Double> seconds) {
        List<String> each = new ArrayList<>();
        seconds.forEach(value -> each.add(String.format("%.1f", value * 1e3)));
        return String.join(", ", each);
    }

    private static double mean(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    }

    private static List<Integer> counts(String given) {
        List<Integer> counts = new ArrayList<>();
        for (String count : given.split(",")) {
            counts.add(Integer.parseInt(count.trim()));
        }
        return counts;
    }

    /** The client.ids the connections come from: as given, else a fifth of them (3,000 of 15,000). */
    private static int clientIds(int connections) {
        return GIVEN_CLIENT_IDS != null ? GIVEN_CLIENT_IDS : Math.max(1, connections / 5);
    }

    private static String run(Path agentJar, int connections, long[] heapOut, double[] cpuOut) throws Exception {
        int clientIds = clientIds(connections);
        List<KafkaHello> hellos = new ArrayList<>();
        try (KafkaBroker broker = KafkaBroker.onLoopback()
                .agent("interval=" + INTERVAL_SECONDS + "s")
                .agentJar(agentJar)
                .start()) {
            long opening = System.nanoTime();
            for (int i = 0; i < connections; i++) {
                hellos.add(KafkaHello.connect(broker.bootstrapServers(), "app-" + (i % clientIds)));
            }
            System.out.printf("%d connections opened in %.1f s%n", connections, (System.nanoTime() - opening) / 1e9);
            LabAwait.await("the agent tracking every connection")
                    .atMost(Duration.ofSeconds(120))
                    .untilTrue(() ->
                            PrometheusText.sample(broker.agentGet("/metrics"), "tcpsight_connections") >= connections);
            Thread.sleep(3L * INTERVAL_SECONDS * 1000); // the first rounds of the new connections
            long pid = broker.process().pid();
            String jfr = System.getProperty("jfr");
            if (jfr != null) {
                jcmd(
                        pid,
                        "JFR.start",
                        "name=round",
                        "settings=profile",
                        "filename=" + Path.of(jfr).toAbsolutePath());
            }
            String before = broker.agentGet("/metrics");
            long ticksBefore = AgentOverheadBenchmark.agentThreadTicks(pid);
            long kernelBefore = AgentOverheadBenchmark.agentThreadTicks(pid, false);
            Thread.sleep((long) ROUNDS * INTERVAL_SECONDS * 1000);
            long ticksAfter = AgentOverheadBenchmark.agentThreadTicks(pid);
            long kernelAfter = AgentOverheadBenchmark.agentThreadTicks(pid, false);
            String after = broker.agentGet("/metrics");
            if (jfr != null) {
                jcmd(pid, "JFR.stop", "name=round");
            }
            String heap = HEAP ? "; " + liveHeap(pid, heapOut) : "";
            double rounds = PrometheusText.sample(after, "tcpsight_round_duration_seconds_count")
                    - PrometheusText.sample(before, "tcpsight_round_duration_seconds_count");
            double roundSeconds = (PrometheusText.sample(after, "tcpsight_round_duration_seconds_sum")
                            - PrometheusText.sample(before, "tcpsight_round_duration_seconds_sum"))
                    / rounds;
            double cpuPerRound = (ticksAfter - ticksBefore) / TICKS_PER_SECOND / rounds;
            cpuOut[0] = cpuPerRound;
            double tracked = PrometheusText.sample(after, "tcpsight_connections");
            return String.format(
                    "round cost at %.0f tracked connections (%d client.ids), %.0f rounds: agent threads' CPU %.1f ms a"
                            + " round (%.1f ms of it in the kernel), %.2f µs a connection, %.3f %% of a core at the"
                            + " default 10 s interval; the"
                            + " round's own duration %.1f ms (tcpsight_round_duration_seconds)%s",
                    tracked,
                    clientIds,
                    rounds,
                    cpuPerRound * 1e3,
                    (kernelAfter - kernelBefore) / TICKS_PER_SECOND / rounds * 1e3,
                    cpuPerRound * 1e6 / tracked,
                    cpuPerRound / 10 * 100,
                    roundSeconds * 1e3,
                    heap);
        } finally {
            for (KafkaHello hello : hellos) {
                hello.close();
            }
        }
    }

    /** The same connections held by a broker without the agent: the heap's baseline. */
    private static String runWithoutAgent(int connections, long[] heapOut) throws Exception {
        int clientIds = clientIds(connections);
        List<KafkaHello> hellos = new ArrayList<>();
        // no class archive, as the broker with the agent beside it in this comparison
        try (KafkaBroker broker =
                KafkaBroker.onLoopback().withoutSharedClasses().start()) {
            for (int i = 0; i < connections; i++) {
                hellos.add(KafkaHello.connect(broker.bootstrapServers(), "app-" + (i % clientIds)));
            }
            Thread.sleep((long) ROUNDS * INTERVAL_SECONDS * 1000);
            return connections + " connections held; "
                    + liveHeap(broker.process().pid(), heapOut);
        } finally {
            for (KafkaHello hello : hellos) {
                hello.close();
            }
        }
    }

    /** The live heap after a full collection (a class histogram collects first), and tcpsight's own share. */
    private static String liveHeap(long pid, long[] totalOut) throws Exception {
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                        Long.toString(pid),
                        "GC.class_histogram")
                .redirectErrorStream(true)
                .start();
        String histogram = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        String keep = System.getProperty("histograms");
        if (keep != null) {
            Files.writeString(Path.of(keep, "histogram-" + pid + ".txt"), histogram);
        }
        long total = 0;
        long ours = 0;
        List<String> top = new ArrayList<>();
        for (String line : histogram.split("\n")) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length >= 2 && columns[0].equals("Total")) {
                total = Long.parseLong(columns[2]);
            } else if (columns.length >= 4 && columns[0].endsWith(":")) {
                if (columns[3].startsWith("io.tcpsight.")) {
                    ours += Long.parseLong(columns[2]);
                }
                if (top.size() < 25) {
                    top.add(line.trim());
                }
            }
        }
        System.out.println("largest classes:\n" + String.join("\n", top));
        totalOut[0] = total;
        return String.format("live heap %.2f MB, of it in io.tcpsight classes %.2f MB", total / 1e6, ours / 1e6);
    }

    private static void jcmd(long pid, String... command) throws Exception {
        List<String> line = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid)));
        line.addAll(List.of(command));
        Process process = new ProcessBuilder(line).inheritIO().start();
        process.waitFor();
    }
}
