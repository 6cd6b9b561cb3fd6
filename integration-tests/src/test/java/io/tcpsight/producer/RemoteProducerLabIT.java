package io.tcpsight.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.ConnectionView;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.RemoteProducer;
import io.tcpsight.lab.ReporterFindings;
import io.tcpsight.lab.Together;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Remote producers with every default (Java with acks=1 and acks=all, and librdkafka's kcat), 100 ms
 * from a broker with every default and the agent, on a 200 Mbit/s line: the agent's warn and critical findings for each are
 * applied as written, round after round (broker keys to the broker, the producer's keys to the producer,
 * sysctls to the host each names), until it has nothing left to say; then the producer writes at
 * 80% of the line or more after one round of remedies (a second fails): a Java producer by its own metrics,
 * kcat by the topic's end offsets (it reports none). Producers whose
 * remedies so far give the same broker and hosts share a round's broker, each with a topic of its
 * own: at once in the first round, where each moves about 5 % of the line, then one after the other.
 *
 * <p>In the first round each producer also runs the tcpsight reporter, which judges the same
 * pipeline from the producer's own request counts: its finding must give the producer the same
 * keys and values as the agent's, the ground truth.
 *
 * <p>The line queues 4,000 packets (2.4 bandwidth-delay products), as a router in front of a
 * 200 Mbit/s link does; with the delay line's default 1,000 (0.6 BDP) the remedied producer's
 * slow start overflows it and CUBIC's loss recovery, not the producer, becomes the subject.
 */
@ResourceLock(HostCpu.LOCK)
class RemoteProducerLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final Link LINE =
            Link.rtt(Duration.ofMillis(100)).rateMbit(200).queuePackets(4000);
    private static final double LINE_BYTES_PER_SECOND = 200e6 / 8;
    private static final String CLIENT_ID = "edge-producer";
    private static final String TOPIC = "edge-records";
    private static final int SECONDS = 10;
    /** One round of remedies: every limit is named in the first, so the broker and producer restart once. */
    private static final int MOST_ROUNDS_OF_REMEDIES = 1;

    private static final int RECORD_BYTES = 1000;
    /** What RemoteProducer's rate leaves out: the window's growth. */
    private static final int WARM_UP_SECONDS = 4;
    /** kcat's records: 400 MB, more than the line carries in a run. */
    private static final int KCAT_RECORDS = 400_000;

    @Test
    void remoteProducersWithEveryDefaultReachTheLineOnceTheirFindingsAreAppliedAsWritten() throws Exception {
        List<Producer> producers =
                List.of(new Producer("java", "1"), new Producer("java", "all"), new Producer("librdkafka", "all"));
        for (int round = 0; round <= MOST_ROUNDS_OF_REMEDIES; round++) {
            // producers whose settings give the same broker and hosts share a lab and a broker (run)
            Map<String, List<Producer>> sharing = new LinkedHashMap<>();
            for (Producer producer : producers) {
                if (!producer.done) {
                    sharing.computeIfAbsent(producer.where(), where -> new ArrayList<>())
                            .add(producer);
                }
            }
            for (List<Producer> group : sharing.values()) {
                run(round, group);
            }
            for (Producer producer : producers) {
                if (producer.done) {
                    continue;
                }
                if (producer.findings.isEmpty() || round == MOST_ROUNDS_OF_REMEDIES) {
                    producer.done = true;
                } else {
                    producer.findings.forEach(producer::apply);
                    producer.remedied++;
                }
            }
        }
        for (Producer producer : producers) {
            String story = String.join("\n", producer.story);
            System.out.println("remote producer " + producer.clientId() + ":\n" + story);
            // "nothing left to say" counts only if the agent judged the producer: its busy connection sampled, twice
            assertTrue(
                    producer.sampled.size() >= 2,
                    "the agent sampled the producer's busy connection in its last run " + producer.sampled.size()
                            + " times:\n" + story);
            assertTrue(
                    producer.rate >= 0.8 * LINE_BYTES_PER_SECOND,
                    "the remedied producer reaches 80% of the line:\n" + story);
            assertTrue(producer.findings.isEmpty(), "nothing left to say:\n" + story);
        }
    }

    /**
     * Whose pace is it: two producers with the reporter, side by side across the line, both sending
     * full batches (15 records of 1,000 bytes each) fewer than once a round trip. One is its
     * application's pace, a burst every 167 ms (0.6 requests a round trip), each sent at once; the
     * other writes as fast as the producer takes records with one request in flight, so its records
     * fill its buffer behind the request ahead. Only the producer's own buffer tells them apart: the first is
     * silent, the second is named. (The broker's agent, which cannot see a producer's buffer, judges
     * both from their requests.)
     */
    @Test
    void aProducerPacedByItsApplicationIsSilentWhereOneHeldByItsPipelineIsNamed() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder().link(LINE).clientInNamespace());
        try (KafkaBroker broker = KafkaBroker.inLab(lab).start()) {
            LabTopics.create(broker, TOPIC, 1);
            LabProcess paced = reportingProducer(
                    lab, broker, "paced-producer", "lab.pace.records=15", "lab.pace.every.ms=167", "batch.size=16384");
            LabProcess held = reportingProducer(
                    lab,
                    broker,
                    "held-producer",
                    "max.in.flight.requests.per.connection=1",
                    "batch.size=16384",
                    "linger.ms=5");
            assertEquals(0, paced.awaitExit(Duration.ofSeconds(60)), paced.output());
            assertEquals(0, held.awaitExit(Duration.ofSeconds(60)), held.output());
            Matcher pacedPipeline = pipeline(paced);
            // the paced producer is where the requests alone would name it: full batches, 0.5 or more a round trip
            double pacedPerRoundTrip = Double.parseDouble(pacedPipeline.group(1)) * 0.1;
            double pacedBatch = Double.parseDouble(pacedPipeline.group(2));
            assertTrue(
                    pacedPerRoundTrip >= 0.5 && pacedPerRoundTrip < 1 && pacedBatch >= 0.75 * 16_384,
                    "the paced producer sends full batches 0.5 to 1 times a round trip: " + pacedPipeline.group() + "\n"
                            + paced.output());
            List<String> pacedRules = new ArrayList<>();
            List<FindingView> pacedPipelineFindings = new ArrayList<>();
            for (FindingView finding : ReporterFindings.printedIn(paced.output())) {
                pacedRules.add(finding.rule());
                if (finding.rule().equals("produce-pipeline-below-bdp")) {
                    pacedPipelineFindings.add(finding);
                }
            }
            FindingView heldFinding = null;
            for (FindingView finding : ReporterFindings.printedIn(held.output())) {
                if (finding.rule().equals("produce-pipeline-below-bdp")) {
                    heldFinding = finding;
                }
            }
            System.out.println("paced: " + pacedPipeline.group() + ", its reporter's rules " + pacedRules
                    + "; held: " + pipeline(held).group() + ", "
                    + (heldFinding == null ? "no finding" : heldFinding.brief()));
            assertTrue(heldFinding != null, "the held producer's reporter names its pipeline:\n" + held.output());
            assertTrue(
                    heldFinding.number("bufferHeld") >= 0.5 * 33_554_432,
                    "its records hold half its buffer.memory or more: " + heldFinding.brief());
            assertTrue(pacedPipelineFindings.isEmpty(), "the paced producer: " + pacedPipelineFindings);
        }
    }

    private static LabProcess reportingProducer(KernelLab lab, KafkaBroker broker, String clientId, String... settings)
            throws Exception {
        List<String> args =
                new ArrayList<>(List.of(broker.bootstrapServers(), TOPIC, clientId, Integer.toString(SECONDS + 4)));
        args.addAll(List.of(settings));
        args.addAll(List.of(
                "metric.reporters=io.tcpsight.kafka.TcpsightMetricsReporter",
                "tcpsight.sample.interval.ms=1000",
                "tcpsight.target.throughput.mbit=200"));
        return lab.javaInClient(clientId, RemoteProducer.class, args.toArray(new String[0]));
    }

    private static Matcher pipeline(LabProcess producer) throws Exception {
        return producer.awaitLine(
                "^pipeline requests/s ([0-9.]+) batch-size-avg ([0-9.]+) record-queue-time-avg ([0-9.]+)$",
                Duration.ZERO);
    }

    /**
     * One round for producers that share a broker: a fresh lab and broker with their settings so far,
     * each producer for SECONDS on a topic of its own (at once in the first round, in turn after it),
     * and the agent's warn and critical findings for it.
     */
    private static void run(int round, List<Producer> producers) throws Exception {
        Producer first = producers.get(0);
        LAB.closeAll();
        KernelLab.Builder builder = KernelLab.builder().link(LINE).clientInNamespace();
        first.serverSysctls.forEach(builder::serverSysctl);
        first.clientSysctls.forEach(builder::clientSysctl);
        KernelLab lab = LAB.start(builder);
        try (KafkaBroker broker = KafkaBroker.inLab(lab)
                .agent("interval=2s,target.throughput.mbit=200")
                .overrides(first.broker)
                .start()) {
            for (Producer producer : producers) {
                LabTopics.create(broker, producer.topic(), 4);
            }
            if (round > 0 || producers.size() == 1) {
                for (Producer producer : producers) {
                    runOne(lab, broker, round, producer);
                }
                return;
            }
            // With every default each producer moves about 5 % of the line (1.1-1.2 MB/s), so in the first round they
            // write at once, each to a topic of its own, and none is another's limit; remedied, each is to reach 80 %
            // of the line, and they take turns.
            List<Callable<Void>> everyProducer = new ArrayList<>();
            for (Producer producer : producers) {
                everyProducer.add(() -> {
                    runOne(lab, broker, round, producer);
                    return null;
                });
            }
            Together.run(everyProducer);
        }
    }

    /** One producer for SECONDS on the round's broker, and the agent's warn and critical findings for it. */
    private static void runOne(KernelLab lab, KafkaBroker broker, int round, Producer producer) throws Exception {
        Map<String, FindingView> findings = new LinkedHashMap<>();
        producer.sampled.clear();
        producer.heard.clear();
        producer.runStartNanos = System.nanoTime();
        producer.polls = 0;
        producer.rate = producer.library.equals("java")
                ? runJava(lab, broker, round, producer, findings)
                : runKcat(lab, broker, round, producer, findings);
        producer.findings = new ArrayList<>(findings.values());
        producer.story.add(String.format(
                "round %d: %.2f MB/s (%.0f%% of the line) with broker %s, producer %s, sysctls %s %s;" + " findings %s",
                round,
                producer.rate / 1e6,
                100 * producer.rate / LINE_BYTES_PER_SECOND,
                producer.broker,
                producer.settings,
                producer.serverSysctls,
                producer.clientSysctls,
                producer.briefs()));
    }

    /** A Java producer (RemoteProducer) for SECONDS; in round 0 with the reporter, which must agree with the agent. */
    private static double runJava(
            KernelLab lab, KafkaBroker broker, int round, Producer producer, Map<String, FindingView> findings)
            throws Exception {
        List<String> args = new ArrayList<>(
                List.of(broker.bootstrapServers(), producer.topic(), producer.clientId(), Integer.toString(SECONDS)));
        producer.settings.forEach((key, value) -> args.add(key + "=" + value));
        if (round == 0) {
            args.addAll(List.of(
                    "metric.reporters=io.tcpsight.kafka.TcpsightMetricsReporter",
                    "tcpsight.sample.interval.ms=1000",
                    "tcpsight.target.throughput.mbit=200"));
        }
        LabProcess process = lab.javaInClient(
                "producer-" + round + "-" + producer.clientId(), RemoteProducer.class, args.toArray(new String[0]));
        long end = System.nanoTime() + Duration.ofSeconds(SECONDS + 30).toNanos();
        while (!process.output().contains("rate ") && System.nanoTime() < end) {
            collect(broker, producer, findings);
            Thread.sleep(1000);
        }
        assertEquals(0, process.awaitExit(Duration.ofSeconds(30)), process.output());
        Matcher rate = process.awaitLine("^rate (\\d+)$", Duration.ZERO);
        assertTrue(process.output().contains("failed 0"), process.output());
        if (round == 0) {
            assertTheProducersOwnEndAgrees(producer, findings, process);
        }
        return Double.parseDouble(rate.group(1));
    }

    /**
     * kcat (librdkafka) for SECONDS, 1,000-byte records from a file as fast as it takes them, its
     * settings as {@code -X}; its rate is the topic's end offsets, from the broker, after the same
     * warm-up as RemoteProducer's.
     */
    private static double runKcat(
            KernelLab lab, KafkaBroker broker, int round, Producer producer, Map<String, FindingView> findings)
            throws Exception {
        LabPrerequisites.requireCommand("kcat", "kcat, a librdkafka client (apt-get install kcat)");
        Path records = LabPaths.work().resolve("kcat-records.txt");
        if (!Files.exists(records)) {
            Path writing = LabPaths.work().resolve("kcat-records.txt.part");
            String line = "r".repeat(RECORD_BYTES) + "\n";
            try (var out = Files.newBufferedWriter(writing)) {
                for (int i = 0; i < KCAT_RECORDS; i++) {
                    out.write(line);
                }
            }
            Files.move(writing, records, StandardCopyOption.REPLACE_EXISTING);
        }
        List<String> command = new ArrayList<>(List.of(
                "kcat",
                "-P",
                "-b",
                broker.bootstrapServers(),
                "-t",
                producer.topic(),
                "-l",
                records.toString(),
                "-X",
                "client.id=" + producer.clientId()));
        producer.settings.forEach((key, value) -> command.addAll(List.of("-X", key + "=" + value)));
        try (Admin admin = LabTopics.admin(broker);
                LabProcess kcat = lab.execInClient("kcat-" + round, command)) {
            long start = System.nanoTime();
            long warmedUp = 0;
            long offsetsAtWarmUp = 0;
            while (System.nanoTime() - start < Duration.ofSeconds(SECONDS).toNanos()) {
                if (warmedUp == 0
                        && System.nanoTime() - start
                                >= Duration.ofSeconds(WARM_UP_SECONDS).toNanos()) {
                    offsetsAtWarmUp = LabTopics.endOffsets(admin, producer.topic());
                    warmedUp = System.nanoTime();
                }
                collect(broker, producer, findings);
                Thread.sleep(1000);
            }
            long written = LabTopics.endOffsets(admin, producer.topic()) - offsetsAtWarmUp;
            assertTrue(kcat.process().isAlive(), "kcat ran out of records or failed:\n" + kcat.output());
            return written * (double) RECORD_BYTES / ((System.nanoTime() - warmedUp) / 1e9);
        }
    }

    /**
     * The agent's warn and critical findings for this producer so far, the first of each rule, and the
     * busy intervals it sampled of the producer's connections (the proof that silence was a judgement).
     */
    private static void collect(KafkaBroker broker, Producer producer, Map<String, FindingView> findings)
            throws Exception {
        producer.polls++;
        String at = producer.sinceLaunch();
        for (ConnectionView connection : ConnectionView.list(broker.agentGet("/connections?top=200"))) {
            if (!producer.clientId().equals(connection.clientId()) || connection.interval() == null) {
                continue;
            }
            producer.heard.putIfAbsent(
                    String.format(
                            "%s received %.0f B/s over %.1f s",
                            connection.connection().remote(),
                            connection.interval().receiveRateBytesPerSecond(),
                            connection.interval().seconds()),
                    at);
            // the producer's records, not its metadata: a tenth of the line at least (the last run, whose silence
            // this proves, must reach 80% of it anyway)
            if (connection.interval().receiveRateBytesPerSecond() >= 0.1 * LINE_BYTES_PER_SECOND) {
                producer.sampled.add(connection.connection().remote() + " " + connection.interval());
            }
        }
        for (FindingView finding : FindingView.list(broker.agentGet("/findings"))) {
            if (producer.clientId().equals(finding.connection().clientId())) {
                producer.heard.putIfAbsent(finding.brief(), at);
                if (!finding.severity().equals("info")) {
                    findings.putIfAbsent(finding.rule(), finding);
                }
            }
        }
    }

    /**
     * The reporter in the producer's JVM names the same pipeline limit, with the same keys and
     * values for the producer, as the agent on the broker does.
     */
    private static void assertTheProducersOwnEndAgrees(
            Producer producer, Map<String, FindingView> agent, LabProcess process) throws Exception {
        String output = process.output();
        FindingView broker = agent.get("produce-pipeline-below-bdp");
        assertTrue(
                broker != null,
                "the agent judged the default pipeline: " + agent.keySet() + "; the producer's own account: "
                        + firstLine(output, "pipeline ")
                        + "; the agent's busy intervals of it " + producer.sampled
                        + "; the producer's start: " + firstLine(output, "sending after ")
                        + "; every finding and interval it had of it, with when a poll first saw it, in seconds after"
                        + " the producer's launch (" + producer.polls + " polls in " + producer.sinceLaunch() + ") "
                        + producer.heard);
        FindingView own = null;
        for (FindingView finding : ReporterFindings.printedIn(output)) {
            if (finding.rule().equals("produce-pipeline-below-bdp")
                    && producer.clientId().equals(finding.connection().clientId())) {
                own = finding;
            }
        }
        assertTrue(own != null, "the reporter judged its own pipeline:\n" + output);
        assertEquals("client", own.connection().role(), own.brief());
        assertEquals(clientSettings(broker), clientSettings(own), "the reporter's remedy against the agent's");
        producer.story.add("round 0, the producer's own reporter: " + own.brief());
    }

    /** The first line of a process's output that starts so, or "none printed". */
    private static String firstLine(String output, String prefix) {
        return output.lines()
                .filter(line -> line.startsWith(prefix))
                .findFirst()
                .orElse("none printed");
    }

    private static List<String> clientSettings(FindingView finding) {
        List<String> settings = new ArrayList<>();
        for (FindingView.Setting setting : finding.remedy().settings()) {
            if (setting.scope().equals("client")) {
                settings.add(setting.key() + "=" + setting.value());
            }
        }
        return settings;
    }

    /** Applies a finding's remedy as written: each setting where its scope and note put it. */
    private static void apply(
            FindingView finding,
            String library,
            Map<String, String> broker,
            Map<String, String> producer,
            Map<String, String> serverSysctls,
            Map<String, String> clientSysctls) {
        for (FindingView.Setting setting : finding.remedy().settings()) {
            switch (setting.scope()) {
                case "broker":
                    broker.put(setting.key(), setting.value());
                    break;
                case "client":
                    assertEquals(library, setting.library(), setting.brief());
                    producer.put(setting.key(), setting.value());
                    break;
                case "sysctl":
                    // a sysctl without a note is this end's host (the broker's); "on ...'s host" is the producer's
                    (setting.note() != null && setting.note().startsWith("on ") ? clientSysctls : serverSysctls)
                            .put(setting.key(), setting.value());
                    break;
                default:
                    throw new AssertionError("a setting this test cannot apply: " + setting.brief());
            }
        }
    }

    /** A producer of one library and acks setting, and what the findings for it have changed so far. */
    private static final class Producer {
        /** "java" (RemoteProducer) or "librdkafka" (kcat): the library its remedies must be spelt for. */
        final String library;

        final String acks;
        final Map<String, String> broker = new LinkedHashMap<>();
        final Map<String, String> settings = new LinkedHashMap<>();
        final Map<String, String> serverSysctls = new LinkedHashMap<>();
        final Map<String, String> clientSysctls = new LinkedHashMap<>();
        final List<String> story = new ArrayList<>();
        List<FindingView> findings = List.of();
        double rate;
        int remedied;
        boolean done;
        /** The distinct busy intervals the agent sampled of this producer's connections in its latest round. */
        final Set<String> sampled = new TreeSet<>();
        /**
         * Every finding of the agent's for this producer in its latest round, info included, and every interval it
         * sampled of it, busy or not, each with the seconds into the run at which a poll first saw it: what a failure
         * shows.
         */
        final Map<String, String> heard = new LinkedHashMap<>();
        /** When the latest run began (its producer's launch), and how many times the agent was polled during it. */
        long runStartNanos;

        int polls;

        /** A Java producer is given its acks; kcat keeps librdkafka's own default, which is acks=all. */
        Producer(String library, String acks) {
            this.library = library;
            this.acks = acks;
            if (library.equals("java")) {
                settings.put("acks", acks);
            }
        }

        /** Seconds since the latest run's launch, as the failure quotes them. */
        String sinceLaunch() {
            return String.format("%.1f s", (System.nanoTime() - runStartNanos) / 1e9);
        }

        String clientId() {
            return library.equals("java") ? CLIENT_ID + "-acks-" + acks : "edge-rdkafka";
        }

        /** Its own topic: kcat's rate is read from the topic's end offsets. */
        String topic() {
            return TOPIC + "-" + clientId();
        }

        /** What the broker and the hosts are given: producers alike in it share a broker. */
        String where() {
            return broker + " " + serverSysctls + " " + clientSysctls;
        }

        void apply(FindingView finding) {
            RemoteProducerLabIT.apply(finding, library, broker, settings, serverSysctls, clientSysctls);
        }

        List<String> briefs() {
            List<String> briefs = new ArrayList<>();
            findings.forEach(finding -> briefs.add(finding.brief()));
            return briefs;
        }
    }
}
