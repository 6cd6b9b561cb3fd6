package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tcpsight.internal.host.NetstatCounters;
import io.tcpsight.lab.ClientConfigDump;
import io.tcpsight.lab.ConnectionView;
import io.tcpsight.lab.DashboardQueries;
import io.tcpsight.lab.DeliveryCheck;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.HostStalls;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabConnectWorker;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.LabRounds;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.PrometheusServer;
import io.tcpsight.lab.PrometheusText;
import io.tcpsight.lab.RttBuckets;
import io.tcpsight.lab.StopTheWorld;
import io.tcpsight.lab.Together;
import io.tcpsight.lab.WorkerJmx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/** The Connect plugin in a real distributed worker, its brokers across the kernel delay line. */
@ResourceLock(HostCpu.LOCK)
class ConnectPluginLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    static final long INTERVAL_MS = 2000;
    static final String EXTENSION = "io.tcpsight.connect.TcpsightRestExtension";
    /** The plugin's rounds the source producer's evidence is read over: 8 s, 60 to 100 requests at one a round trip. */
    private static final int JUDGED_ROUNDS = 4;

    private static final double EVIDENCE_SHARE = 0.15;
    /** Connect's source producers keep Kafka's batch.size. */
    private static final int CONNECT_BATCH_SIZE = 16384;

    private static final double FULL_BATCH_SHARE = 0.9;

    @Test
    void smallConsumerBuffer100MsAwayIsReportedForTheConnectorsConsumersWithinOneInterval() throws Exception {
        try (LabConnectWorker worker =
                smallBufferWorkerWithSink(LAB, Link.rtt(Duration.ofMillis(100)).rateMbit(200), "far")) {
            Path sink = worker.directory().resolve("far.txt");
            long running = awaitRunning(worker, "far-sink", 2);
            FindingView finding = LabAwait.await("small-receive-buffer for the connector's consumers")
                    .atMost(Duration.ofSeconds(60))
                    .explainedBy(() -> "worker output:\n" + worker.process().output())
                    .until(() -> FindingView.list(worker.getText("/tcpsight/findings")).stream()
                            .filter(candidate -> candidate.is("small-receive-buffer")
                                    && candidate.clientIdStartsWith("connector-consumer-far-sink-"))
                            .findFirst()
                            .orElse(null));
            long afterRunningMs = (System.nanoTime() - running) / 1_000_000;
            System.out.println("connector consumer finding " + afterRunningMs
                    + " ms after its tasks were RUNNING (interval " + INTERVAL_MS + " ms): " + finding);
            assertEquals("far-sink", finding.connection().connector());
            LAB.latest().idleLine().assertQuoted(finding.number("rtt"), finding.brief());
            List<String> keys = new ArrayList<>();
            finding.remedy().settings().forEach(setting -> keys.add(setting.key() + "=" + setting.value()));
            assertTrue(
                    keys.contains("consumer.receive.buffer.bytes=-1")
                            && keys.contains("consumer.override.receive.buffer.bytes=-1"),
                    keys.toString());
            // the consumer connects after RUNNING; one interval (with its jitter) plus the connect itself
            assertTrue(afterRunningMs < 2 * INTERVAL_MS + 3000, "finding came " + afterRunningMs + " ms after RUNNING");
            String log = worker.process().output();
            assertTrue(
                    log.lines()
                            .anyMatch(line -> line.contains("small-receive-buffer")
                                    && line.contains("connector-consumer-far-sink-")),
                    "the worker log names the finding and the consumer:\n" + log);
            // Prometheus scrapes from here (its start and three scrapes take a few seconds) while the sink and a source
            // do their work: the same 100 ms line throughout
            try (PrometheusServer prometheus =
                    PrometheusServer.scraping(Map.of("tcpsight-connect", worker.restUrl() + "/tcpsight/metrics"))) {
                awaitLines(sink, 100);
                startDefaultSourceAcrossTheLine(worker);
                String scrape = worker.getText("/tcpsight/metrics");
                DashboardQueries.assertAllExist(scrape, "connect-plugin.json");
                assertEquals("", PrometheusServer.lint(scrape), "promtool check metrics");
                DashboardQueries.assertEveryQueryAnswers(prometheus, "tcpsight-connect", "connect-plugin.json");
                double median = prometheus
                        .query(
                                "histogram_quantile(0.5, sum by (le) (rate("
                                        + "tcpsight_connection_rtt_seconds_bucket{job=\"tcpsight-connect\", role=\"client\"}[1m])))")
                        .get(0)
                        .value();
                List<Double> kernel = new ArrayList<>();
                for (ConnectionView connection :
                        ConnectionView.list(worker.getText("/tcpsight/connections?top=1000"))) {
                    if (connection.tcpInfo() != null) {
                        kernel.add(connection.tcpInfo().rttMs() / 1000);
                    }
                }
                double kernelMedian = median(kernel);
                System.out.printf(
                        "RTT median on the 100 ms line: Prometheus %.4f s, kernel %.4f s%n", median, kernelMedian);
                assertEquals(0.1, median, 0.05, "the RTT median Prometheus computes is about 0.1 s");
                RttBuckets.assertWithinOneBucket(median, kernelMedian);
            }
            assertTheSourceProducersPipelineIsJudged(worker);
        }
    }

    /**
     * A FileStreamSource with Connect's producer defaults (16 KiB batches, one request in flight)
     * writing 1,000-byte lines across the same 100 ms, as fast as its task reads them, into a
     * topic the broker creates (its default, one partition).
     */
    private static void startDefaultSourceAcrossTheLine(LabConnectWorker worker) throws Exception {
        Path lines = worker.directory().resolve("far-source.txt");
        String line = "s".repeat(1000) + "\n";
        try (var out = Files.newBufferedWriter(lines)) {
            for (int i = 0; i < 30_000; i++) { // 30 MB: more than the defaults carry in this test
                out.write(line);
            }
        }
        worker.put("/connectors/far-source/config", fileSource(lines, "far-written"));
    }

    /** A one-task FileStreamSource of this file into this topic, its settings to add to. */
    private static Map<String, String> fileSource(Path file, String topic) {
        return new HashMap<>(Map.of(
                "connector.class",
                "org.apache.kafka.connect.file.FileStreamSourceConnector",
                "tasks.max",
                "1",
                "file",
                file.toString(),
                "topic",
                topic));
    }

    /**
     * The plugin judges the source task's producer from its own request counts (JMX): one full
     * batch a round trip is far below the path, and the remedy is in the worker's and the
     * connector's producer keys.
     */
    private static void assertTheSourceProducersPipelineIsJudged(LabConnectWorker worker) throws Exception {
        FindingView finding = awaitSourcePipelineFinding(worker);
        System.out.println("the source task's producer, judged by the plugin: " + finding.brief());
        assertEquals("far-source", finding.connection().connector());
        assertEquals("client", finding.connection().role());
        List<String> keys = new ArrayList<>();
        finding.remedy().settings().forEach(setting -> keys.add(setting.key() + "=" + setting.value()));
        assertTrue(
                keys.contains("producer.override.max.in.flight.requests.per.connection=5")
                        && keys.contains("producer.max.in.flight.requests.per.connection=5")
                        && keys.contains("producer.override.send.buffer.bytes=-1"),
                keys.toString());
        assertTrue(keys.stream().anyMatch(key -> key.startsWith("producer.override.batch.size=")), keys.toString());
        assertTheEvidenceIsWhatTheProducerSaysOfItself(worker);
    }

    /**
     * The finding's evidence against the producer's own metrics (the worker's JMX) over the same
     * seconds: the plugin counts a producer's requests between two of its rounds, so the test
     * reads the producer's request-total and outgoing-byte-total as each round ends, for
     * JUDGED_ROUNDS rounds in a row that each judged the producer, and holds the mean of the
     * findings' requests a second (requests a round trip over their RTT) and bytes a request to
     * the producer's own over those rounds, within EVIDENCE_SHARE. The batches the finding counts
     * as full are full in the producer's batch-size-avg.
     */
    private static void assertTheEvidenceIsWhatTheProducerSaysOfItself(LabConnectWorker worker) throws Exception {
        AtomicInteger tries = new AtomicInteger();
        JudgedRounds rounds = LabAwait.await(JUDGED_ROUNDS + " rounds in a row that judge the source producer")
                .atMost(Duration.ofSeconds(90))
                .until(() -> {
                    tries.incrementAndGet();
                    return JudgedRounds.read(worker, JUDGED_ROUNDS);
                });
        System.out.println("the source producer's judged rounds, read at try " + tries.get());
        for (FindingView finding : rounds.findings) {
            // the RTT the rate is taken over is the path's, as the line allows it, not only the finding's own word
            LAB.latest().idleLine().assertQuoted(finding.number("rtt"), finding.brief());
            // the topic the broker created for it holds one partition (Kafka's num.partitions): one batch a request
            assertEquals(1, finding.number("partitionsPerRequest"), 0.0, finding.brief());
        }
        double pluginPerSecond = rounds.findings.stream()
                .mapToDouble(finding -> finding.number("requestsPerRoundTrip") / (finding.number("rtt") / 1000))
                .average()
                .orElseThrow();
        double pluginBytesPerRequest = rounds.findings.stream()
                .mapToDouble(finding -> finding.number("bytesPerRequest"))
                .average()
                .orElseThrow();
        WorkerJmx.ProducerReading first = rounds.readings.get(0);
        WorkerJmx.ProducerReading last = rounds.readings.get(rounds.readings.size() - 1);
        double ownPerSecond = last.requestsPerSecondSince(first);
        double ownBytesPerRequest = last.bytesPerRequestSince(first);
        System.out.printf(
                "the source producer over %d rounds of the plugin: the findings' %.2f requests a second and %.0f bytes"
                        + " a request (requests a round trip %s); its own metrics over the same rounds: %.2f and %.0f,"
                        + " batch-size-avg %.0f of %d%n",
                JUDGED_ROUNDS,
                pluginPerSecond,
                pluginBytesPerRequest,
                rounds.findings.stream()
                        .map(finding -> String.valueOf(finding.number("requestsPerRoundTrip")))
                        .toList(),
                ownPerSecond,
                ownBytesPerRequest,
                last.batchSizeAvg(),
                CONNECT_BATCH_SIZE);
        assertEquals(
                ownPerSecond,
                pluginPerSecond,
                ownPerSecond * EVIDENCE_SHARE,
                "requests a second: the plugin's findings against the producer's own, over the same rounds");
        assertEquals(
                ownBytesPerRequest,
                pluginBytesPerRequest,
                ownBytesPerRequest * EVIDENCE_SHARE,
                "bytes a request: the plugin's findings against the producer's own, over the same rounds");
        assertTrue(
                last.batchSizeAvg() >= FULL_BATCH_SHARE * CONNECT_BATCH_SIZE,
                "the producer's batches are full, as the finding reads its requests: batch-size-avg "
                        + last.batchSizeAvg());
    }

    /**
     * Consecutive rounds of the plugin that each judged the source producer: the producer's own
     * counts read as each round ended (one more reading than rounds) and each round's finding.
     * A round's end is seen when the plugin's round count moves (polled every 50 ms), so every
     * reading lags its round's start by about the same time and the lags cancel over the span.
     * Its finding is read half an interval later, when the round has surely published it and the
     * next one has not begun.
     */
    private static final class JudgedRounds {
        final List<WorkerJmx.ProducerReading> readings = new ArrayList<>();
        final List<FindingView> findings = new ArrayList<>();

        /** Rounds in a row that judged the producer; null when one did not, or a round ended unseen. */
        static JudgedRounds read(LabConnectWorker worker, int wanted) throws Exception {
            JudgedRounds rounds = new JudgedRounds();
            int round = nextRound(worker, LabRounds.count(worker.getText("/tcpsight/metrics")));
            rounds.readings.add(worker.jmx().producer("connector-producer-far-source-"));
            while (rounds.findings.size() < wanted) {
                int next = nextRound(worker, round);
                if (next != round + 1) {
                    return null; // a round ended between two polls' worth of reading: its seconds are not known
                }
                rounds.readings.add(worker.jmx().producer("connector-producer-far-source-"));
                Thread.sleep(INTERVAL_MS / 2);
                String findings = worker.getText("/tcpsight/findings");
                if (LabRounds.count(worker.getText("/tcpsight/metrics")) != next) {
                    return null;
                }
                FindingView finding = FindingView.list(findings).stream()
                        .filter(candidate -> candidate.is("produce-pipeline-below-bdp")
                                && candidate.clientIdStartsWith("connector-producer-far-source-"))
                        .findFirst()
                        .orElse(null);
                if (finding == null) {
                    return null;
                }
                rounds.findings.add(finding);
                round = next;
            }
            return rounds;
        }

        /** Polls the plugin's round count until it moves past this one; returns the new count. */
        private static int nextRound(LabConnectWorker worker, int after) throws Exception {
            long deadline =
                    System.nanoTime() + Duration.ofMillis(4 * INTERVAL_MS).toNanos();
            while (System.nanoTime() < deadline) {
                int count = LabRounds.count(worker.getText("/tcpsight/metrics"));
                if (count > after) {
                    return count;
                }
                Thread.sleep(50);
            }
            throw new AssertionError("the plugin ran no round in " + 4 * INTERVAL_MS + " ms after round " + after);
        }
    }

    private static FindingView awaitSourcePipelineFinding(LabConnectWorker worker) {
        return LabAwait.await("produce-pipeline-below-bdp for the source task's producer")
                .atMost(Duration.ofSeconds(60))
                .explainedBy(() -> {
                    try {
                        return "findings:\n" + worker.getText("/tcpsight/findings") + "\nconnections:\n"
                                + worker.getText("/tcpsight/connections?top=1000");
                    } catch (IOException | InterruptedException unanswered) {
                        return "the worker's /tcpsight/* did not answer: " + unanswered;
                    }
                })
                .until(() -> FindingView.list(worker.getText("/tcpsight/findings")).stream()
                        .filter(candidate -> candidate.is("produce-pipeline-below-bdp")
                                && candidate.clientIdStartsWith("connector-producer-far-source-"))
                        .findFirst()
                        .orElse(null));
    }

    /**
     * 100 ms, 200 Mbit/s; a topic of 2 x 240 MB pre-filled. The same FileStreamSink (2 tasks) runs
     * first with Kafka's default consumer settings, then with ${tcpsight:fetch:...} overrides.
     * Throughput is what the connector's consumers receive (TCP payload, from TCP_INFO per
     * interval, median over the transfer: about ten intervals of 2 s adapted, so that the ramp and
     * the tail do not decide it), against the link's TCP goodput ceiling. The broker's namespace
     * keeps cwnd across idle gaps (tcp_slow_start_after_idle=0), as a long fat link should.
     */
    @Test
    void adaptedFetchSizesFillALongFatLinkWhereDefaultsCrawl() throws Exception {
        Link link = Link.rtt(Duration.ofMillis(100)).rateMbit(200);
        double ceilingMbit = 200 * 1448.0 / 1500; // goodput of full-sized segments
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(link)
                .clientInNamespace()
                .clientSysctl("net.ipv4.tcp_rmem", "4096 131072 33554432")
                .serverSysctl("net.ipv4.tcp_wmem", "4096 16384 33554432")
                .serverSysctl("net.ipv4.tcp_slow_start_after_idle", 0));
        KafkaBroker broker =
                KafkaBroker.start(lab, Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"));
        int partitions = Integer.getInteger("adaptation.partitions", 2);
        // 4000-byte records (11 digits, the payload, a newline: 4000 bytes a line at the sink): FileStreamSink's tasks
        // append to one file, and a line must go out in one write() to stay whole
        int records = Integer.getInteger("adaptation.records", 120_000);
        int recordBytes = 4000;
        LabTopics.create(broker, "bulk", partitions);
        // the topic is filled beside the broker while the worker starts across the line (round trips, mostly):
        // both are setup, and the connectors start once both are done
        try (LabConnectWorker worker = Together.startWhile(
                () -> LabConnectWorker.start(
                        lab,
                        broker,
                        Map.of(
                                "rest.extension.classes",
                                EXTENSION,
                                "tcpsight.sample.interval.ms",
                                Long.toString(INTERVAL_MS),
                                "tcpsight.sample.jitter",
                                "0",
                                "config.providers",
                                "tcpsight",
                                "config.providers.tcpsight.class",
                                "io.tcpsight.connect.TcpsightConfigProvider",
                                "config.providers.tcpsight.param.tcpsight.target.throughput.mbit",
                                "200")),
                () -> {
                    LabTopics.fillBesideBroker(lab, broker, "bulk", records, recordBytes);
                    return null;
                })) {
            Map<String, String> sink = new HashMap<>(Map.of(
                    "connector.class",
                    "org.apache.kafka.connect.file.FileStreamSinkConnector",
                    "tasks.max",
                    Integer.toString(partitions),
                    "topics",
                    "bulk"));
            Map<String, String> defaults = new HashMap<>(sink);
            defaults.put("file", worker.directory().resolve("default.txt").toString());
            Throughput slow = measure(
                    worker,
                    "default-sink",
                    defaults,
                    worker.directory().resolve("default.txt"),
                    records,
                    recordBytes,
                    DEFAULT_INTERVALS);
            worker.delete("/connectors/default-sink");
            Map<String, String> adapted = new HashMap<>(sink);
            adapted.put("file", worker.directory().resolve("adapted.txt").toString());
            adapted.put("consumer.override.fetch.max.bytes", "${tcpsight:fetch:fetch.max.bytes}");
            adapted.put("consumer.override.max.partition.fetch.bytes", "${tcpsight:fetch:max.partition.fetch.bytes}");
            adapted.put("consumer.override.receive.buffer.bytes", "${tcpsight:fetch:receive.buffer.bytes}");
            adapted.put("consumer.override.max.poll.records", "${tcpsight:fetch:max.poll.records}");
            Throughput fast = measure(
                    worker,
                    "adapted-sink",
                    adapted,
                    worker.directory().resolve("adapted.txt"),
                    records,
                    recordBytes,
                    30);
            System.out.printf(
                    "adaptation at %s: default %.1f Mbit/s (%.1f%% of the %.1f Mbit/s ceiling), adapted %.1f Mbit/s (%.1f%%),"
                            + " %.1fx; per interval (connector's consumers / all the worker's broker connections) default %s, adapted %s%n",
                    link,
                    slow.medianMbit,
                    100 * slow.medianMbit / ceilingMbit,
                    ceilingMbit,
                    fast.medianMbit,
                    100 * fast.medianMbit / ceilingMbit,
                    fast.medianMbit / slow.medianMbit,
                    slow.samples,
                    fast.samples);
            String log = worker.process().output();
            log.lines()
                    .filter(line -> line.contains("recommending"))
                    .findFirst()
                    .ifPresent(System.out::println);
            // tcpsight names the connections that carry the transfer: what it attributes to the connector is what the
            // worker receives
            assertEquals(
                    slow.medianAllMbit, slow.medianMbit, 0.05 * slow.medianAllMbit, "default: named " + slow.samples);
            assertEquals(
                    fast.medianAllMbit, fast.medianMbit, 0.05 * fast.medianAllMbit, "adapted: named " + fast.samples);
            assertTrue(slow.medianMbit <= 0.10 * ceilingMbit, "default " + slow.medianMbit + " Mbit/s");
            // The goal is 90% (docs/benchmarks.md: 92.7-95.8% in 13 runs); the bound leaves room for a CI machine whose
            // two cores also run Maven, the broker and the userspace delay line (89.5% once). Each side is held to
            // the line's arithmetic, never one to the other's luck: a ratio of the two failed on a fast defaults run.
            assertTrue(fast.medianMbit >= 0.85 * ceilingMbit, "adapted " + fast.medianMbit + " Mbit/s");
            assertEquals(records, fast.linesAtSink, "the adapted connector delivered every record");
            assertSourceProducerGetsBatchesForThePath(worker);
        }
    }

    /**
     * A source connector's producer writes across the same 100 ms to the worker's cluster: the
     * provider's produce values reach the producer Kafka builds (its own config dump in the log).
     * Two BDPs at 200 Mbit/s over five requests of one partition is 1 MB, a 1 MiB batch.
     */
    private static void assertSourceProducerGetsBatchesForThePath(LabConnectWorker worker) throws Exception {
        Path lines = worker.directory().resolve("source.txt");
        Files.writeString(lines, "one\ntwo\nthree\n");
        Map<String, String> source = fileSource(lines, "bulk");
        source.put("producer.override.batch.size", "${tcpsight:produce:batch.size}");
        source.put("producer.override.linger.ms", "${tcpsight:produce:linger.ms}");
        source.put("producer.override.send.buffer.bytes", "${tcpsight:produce:send.buffer.bytes}");
        worker.put("/connectors/far-source/config", source);
        awaitRunning(worker, "far-source", 1);
        ClientConfigDump producer = LabAwait.await("the source task's producer config in the worker log")
                .atMost(Duration.ofSeconds(30))
                .until(() -> ClientConfigDump.latest(
                                worker.process().output(), "Producer", "connector-producer-far-source-0")
                        .orElse(null));
        Map<String, String> built = producer.values("batch.size", "linger.ms", "send.buffer.bytes");
        System.out.println("the source task's producer, built with the provider's produce values: " + built);
        assertEquals(Map.of("batch.size", "1048576", "linger.ms", "20", "send.buffer.bytes", "-1"), built);
    }

    /** Connects per second the worker's agent allows in the paced storm. */
    private static final int STORM_CONNECT_RATE = 60;

    /**
     * 200 sink tasks start at once against a broker with a tiny listen backlog (somaxconn 8, SYN
     * cookies on) 20 ms away, client timestamps off (so a cookie loses window scaling). First
     * without pacing, then with pacing, each with a fresh worker. Pacing is both halves of
     * tcpsight: the plugin's override policy spaces the task client builds, and the agent in the
     * worker JVM ({@code connect.rate}) spaces the connects, which is what reaches the leader
     * connections every member opens when the group's assignment arrives.
     */
    @Test
    void pacingTaskStartsAvoidsSynCookiesWithoutSlowingTheStartDown() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.oneWay(Duration.ofMillis(10)).rateMbit(1000))
                .clientInNamespace()
                .clientSysctl("net.ipv4.tcp_timestamps", 0)
                .serverSysctl("net.ipv4.tcp_syncookies", 1)
                .serverSysctl("net.core.somaxconn", 8));
        // the broker's stop-the-world pauses, so that an overflow of its accept queue says whether its JVM or the host
        // held its acceptor
        Path safepoints = Files.createTempFile(LabPaths.work(), "storm-broker-safepoints-", ".log");
        KafkaBroker broker = KafkaBroker.inLab(lab)
                .jvmOptions(List.of("-Xlog:safepoint=info:file=" + safepoints))
                .start();
        int tasks = 200;
        LabTopics.create(broker, "storm", tasks);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of("bootstrap.servers", broker.bootstrapServers()),
                new StringSerializer(),
                new StringSerializer())) {
            for (int partition = 0; partition < tasks; partition++) {
                producer.send(new ProducerRecord<>("storm", partition, null, "storm-record-" + partition));
            }
        }
        Storm unpaced = storm(lab, broker, safepoints, "storm-unpaced", tasks, Map.of(), null);
        // The listen queue of 8 must hold every connect that arrives while the broker's acceptor is stalled (GC, a busy
        // core; the userspace delay line itself stalls on 2 cores) as well as those in their 20 ms handshake. 60/s with
        // a burst of 1 leaves room for a stall of over 100 ms.
        Storm paced = storm(
                lab,
                broker,
                safepoints,
                "storm-paced",
                tasks,
                Map.of("connector.client.config.override.policy", "io.tcpsight.connect.TcpsightOverridePolicy"),
                "connect.rate=" + STORM_CONNECT_RATE + ",connect.burst=1");
        // The working-time ratio is a performance figure (docs/benchmarks.md), printed and not asserted: it moves with
        // the group's rebalances.
        System.out.printf(
                "storm of %d tasks: unpaced %s; paced %s; working time ratio %.2f%n",
                tasks, unpaced, paced, paced.workingSeconds / unpaced.workingSeconds);
        assertTrue(unpaced.cookies > 0, "the unpaced storm overflows the listen queue: " + unpaced);
        assertTrue(paced.pacedBuilds >= tasks, "every task client build went through the token bucket: " + paced);
        assertEquals(0, unpaced.pacedBuilds, 0.0);
        assertTrue(paced.pacedConnects >= 3 * tasks, "each task consumer's three connects were paced: " + paced);
        // Counted once the group has settled (its last assignment, and so its last leader connection, is made): the
        // unscaled sockets the kernel shows are the ones tcpsight reports, no more and no fewer.
        assertTrue(unpaced.unscaledInKernel > 0, "cookies without timestamps leave unscaled connections: " + unpaced);
        assertEquals(
                unpaced.unscaledInKernel,
                unpaced.unscaledFindings,
                "every unscaled connection is reported: " + unpaced);
        assertEquals(0, paced.cookies, "paced: no SYN cookie: " + paced);
        assertEquals(0, paced.overflows, "paced: no listen overflow: " + paced);
        assertEquals(0, paced.unscaledInKernel, "paced: every connection scales its window: " + paced);
        assertEquals(0, paced.unscaledFindings, "paced: nothing reported unscaled: " + paced);
    }

    private static final class Storm {
        double runningSeconds;
        double workingSeconds;
        double settledSeconds;
        long cookies;
        long overflows;
        int unscaledFindings;
        int unscaledInKernel;
        double pacedBuilds;
        double pacedConnects;
        final List<String> unscaledOwners = new ArrayList<>();

        @Override
        public String toString() {
            return String.format(
                            "all RUNNING after %.1f s, every partition delivered after %.1f s, group settled after %.1f s,"
                                    + " SyncookiesSent +%d, ListenOverflows +%d, unscaled connections %d (kernel) / %d (no-window-scaling findings),"
                                    + " paced builds %.0f, paced connects %.0f",
                            runningSeconds,
                            workingSeconds,
                            settledSeconds,
                            cookies,
                            overflows,
                            unscaledInKernel,
                            unscaledFindings,
                            pacedBuilds,
                            pacedConnects)
                    + (unscaledOwners.isEmpty() || unscaledOwners.size() > 5 ? "" : ", unscaled: " + unscaledOwners);
        }
    }

    private static Storm storm(
            KernelLab lab,
            KafkaBroker broker,
            Path safepoints,
            String name,
            int tasks,
            Map<String, String> extra,
            String agentArguments)
            throws Exception {
        Map<String, String> config = new HashMap<>(
                Map.of("rest.extension.classes", EXTENSION, "tcpsight.sample.interval.ms", Long.toString(INTERVAL_MS)));
        config.putAll(extra);
        // The previous run's worker has exited; its hundreds of connections must be closed at the broker before this
        // one starts, so that nothing of that run reaches into this one's counts.
        long quietFrom = System.nanoTime();
        assertEquals(
                0,
                lab.awaitServerQuiet(Duration.ofSeconds(60)),
                "the broker still holds connections of the previous run");
        System.out.printf("%s: the broker's end was quiet after %.1f s%n", name, (System.nanoTime() - quietFrom) / 1e9);
        try (LabConnectWorker worker = LabConnectWorker.start(lab, broker, config, agentArguments)) {
            Thread.sleep(2000); // the worker's own clients settle
            // The storm's window: cookies and overflows from here on, and the connections opened from here on (the
            // worker's own, opened at its start, are not the storm's).
            NetstatCounters before = lab.serverNetstat();
            HostStalls hostBefore = HostStalls.read();
            long safepointsBefore = Files.size(safepoints);
            Duration brokerCpuBefore = brokerCpu(broker);
            Map<Integer, Boolean> beforeStorm = lab.clientConnectionScaling();
            Path file = worker.directory().resolve(name + ".txt");
            long start = System.nanoTime();
            worker.put(
                    "/connectors/" + name + "/config",
                    Map.of(
                            "connector.class",
                            "org.apache.kafka.connect.file.FileStreamSinkConnector",
                            "tasks.max",
                            Integer.toString(tasks),
                            "topics",
                            "storm",
                            "file",
                            file.toString()));
            Storm storm = new Storm();
            storm.runningSeconds = (awaitRunning(worker, name, tasks) - start) / 1e9;
            awaitLines(file, tasks);
            storm.workingSeconds = (System.nanoTime() - start) / 1e9;
            storm.settledSeconds = (awaitGroupSettled(broker, "connect-" + name, tasks) - start) / 1e9;
            assertTrue(
                    lab.awaitServerQuiet(Duration.ZERO) >= tasks,
                    "the lab sees this worker's connections at the broker's end");
            // The plugin judges a connection in the first sampling round after it opens: two more rounds end
            // after a whole round that began after the last one opened; then the kernel's count and the findings
            // must agree within three more intervals.
            LabRounds.awaitMore("the plugin", () -> worker.getText("/tcpsight/metrics"), 2);
            long deadline = System.nanoTime() + 3 * INTERVAL_MS * 1_000_000L;
            do {
                storm.unscaledInKernel = 0;
                lab.clientConnectionScaling().forEach((port, scaled) -> {
                    if (!scaled && !beforeStorm.containsKey(port)) {
                        storm.unscaledInKernel++;
                    }
                });
                storm.unscaledFindings = 0;
                storm.unscaledOwners.clear();
                for (JsonNode finding : worker.get("/tcpsight/findings")) {
                    String local = finding.path("connection").path("local").asText("");
                    int localPort =
                            local.contains(":") ? Integer.parseInt(local.substring(local.lastIndexOf(':') + 1)) : -1;
                    if (finding.path("rule").asText().equals("no-window-scaling")
                            && !beforeStorm.containsKey(localPort)) {
                        storm.unscaledFindings++;
                        storm.unscaledOwners.add(
                                finding.path("connection").path("clientId").asText("unnamed"));
                    } else if (finding.path("rule").asText().equals("unplaced-sockets")) {
                        // sockets whose owner is not certain (200 tasks' idle sockets tie) are reported by count, per
                        // broker path; the worker's sockets from before the storm scale their window
                        int unplaced = finding.path("evidence")
                                .path("no-window-scaling")
                                .path("value")
                                .asInt(0);
                        storm.unscaledFindings += unplaced;
                        for (int i = 0; i < unplaced; i++) {
                            storm.unscaledOwners.add("unplaced");
                        }
                    }
                }
                if (storm.unscaledFindings == storm.unscaledInKernel) {
                    break;
                }
                Thread.sleep(INTERVAL_MS / 4);
            } while (System.nanoTime() < deadline);
            NetstatCounters after = lab.serverNetstat();
            // What the line itself added so far, both storms included: a stall of the line holds SYN-ACKs and ACKs,
            // and the SYN queue fills with connects that are paced but not yet answered.
            System.out.println(name + ": the line so far: " + lab.lineHeldSoFar());
            System.out.println(name + ": the broker's JVM " + StopTheWorld.since(safepoints, safepointsBefore)
                    + ", its CPU " + brokerCpu(broker).minus(brokerCpuBefore).toMillis() + " ms; "
                    + HostStalls.read().busySince(hostBefore));
            storm.cookies = after.tcpExt("SyncookiesSent").orElse(0)
                    - before.tcpExt("SyncookiesSent").orElse(0);
            storm.overflows = after.tcpExt("ListenOverflows").orElse(0)
                    - before.tcpExt("ListenOverflows").orElse(0);
            storm.pacedBuilds =
                    PrometheusText.sample(worker.getText("/tcpsight/metrics"), "tcpsight_startup_paced_builds_total");
            if (agentArguments != null) {
                storm.pacedConnects =
                        PrometheusText.sample(worker.agent().getText("/metrics"), "tcpsight_connects_paced_total");
            }
            System.out.println(name + ": " + storm + "; before the storm " + beforeStorm.size()
                    + " connections, unscaled "
                    + beforeStorm.values().stream().filter(scaled -> !scaled).count());
            return storm;
        }
    }

    private static Duration brokerCpu(KafkaBroker broker) {
        return broker.process().process().info().totalCpuDuration().orElse(Duration.ZERO);
    }

    private static final class Throughput {
        /** Median per interval of what the connector's consumers received, as tcpsight names the connections. */
        final double medianMbit;
        /** The same over every broker connection of the worker, named or not. */
        final double medianAllMbit;

        final List<String> samples;
        final int linesAtSink;

        Throughput(double medianMbit, double medianAllMbit, List<String> samples, int linesAtSink) {
            this.medianMbit = medianMbit;
            this.medianAllMbit = medianAllMbit;
            this.samples = samples;
            this.linesAtSink = linesAtSink;
        }
    }

    /**
     * Intervals of the defaults' transfer: a window-limited flow moves the same in each (11.4-12.1
     * Mbit/s over eight, 2026-11-30), and its median is held to a tenth of the line, where it sits at 6 %.
     */
    private static final int DEFAULT_INTERVALS = 5;

    /** Received by the worker in an interval that counts as one of the transfer (the default connector's gets 5 Mbit/s a task). */
    private static final double TRANSFERRING_BITS_PER_SECOND = 500_000;

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
    }

    /**
     * Runs the connector until every record is at the sink (its lines are lineBytes each, so the file's size tells) or for
     * at most this many intervals with data, then reads the sink once to count and compare the records.
     */
    private static Throughput measure(
            LabConnectWorker worker,
            String name,
            Map<String, String> config,
            Path file,
            int records,
            int lineBytes,
            int maxIntervals)
            throws Exception {
        worker.put("/connectors/" + name + "/config", config);
        awaitRunning(worker, name, Integer.parseInt(config.get("tasks.max")));
        List<Double> named = new ArrayList<>();
        List<Double> all = new ArrayList<>();
        List<String> shown = new ArrayList<>();
        long deadline = System.nanoTime() + 240_000_000_000L;
        Set<String> seenRounds = new HashSet<>();
        int tasks = Integer.parseInt(config.get("tasks.max"));
        while (System.nanoTime() < deadline && named.size() < maxIntervals) {
            Thread.sleep(INTERVAL_MS / 4);
            double connectorRate = 0;
            double workerRate = 0;
            Map<String, Double> taskRates = new HashMap<>();
            StringBuilder round = new StringBuilder();
            for (JsonNode connection : worker.get("/tcpsight/connections?top=1000")) {
                double rate = connection
                        .path("interval")
                        .path("receiveRateBytesPerSecond")
                        .asDouble(0);
                workerRate += rate;
                round.append(connection.path("tcpInfo").path("bytesReceived").asText())
                        .append(',');
                String clientId = connection.path("connection").path("clientId").asText();
                if (clientId.startsWith("connector-consumer-" + name + "-")) {
                    connectorRate += rate;
                    taskRates.merge(clientId, rate, Double::sum);
                }
            }
            boolean done = Files.exists(file) && Files.size(file) >= (long) records * lineBytes;
            // an interval of the transfer: the worker's own clients (config, offsets, status, group) receive a few
            // kbit/s. Counted once every task's fetch connection is named (each task's named sockets carry a share of
            // the transfer, not a coordinator's trickle): a name comes three exact rounds after the
            // census sees a socket, and a transfer that starts at once spends its first interval or two unnamed
            // (two of twelve intervals at 0 moved the named median 6% below the worker's once, 2026-11-26); how soon
            // a name comes is smallConsumerBuffer100MsAwayIsReportedForTheConnectorsConsumersWithinOneInterval's claim.
            if (workerRate * 8 > TRANSFERRING_BITS_PER_SECOND
                    && taskRates.values().stream()
                                    .filter(rate -> rate * 8 > TRANSFERRING_BITS_PER_SECOND / tasks)
                                    .count()
                            == tasks
                    && seenRounds.add(round.toString())
                    && !done) {
                named.add(connectorRate * 8 / 1e6);
                all.add(workerRate * 8 / 1e6);
                shown.add(String.format("%.1f/%.1f", connectorRate * 8 / 1e6, workerRate * 8 / 1e6));
            }
            if (done) {
                break;
            }
        }
        List<String> atSink = Files.exists(file) ? Files.readAllLines(file) : List.of();
        int lines = atSink.size();
        if (lines >= records) {
            assertEquals(records, new HashSet<>(atSink).size(), "no record lost or duplicated at " + file);
        } else {
            assertEquals(lines, new HashSet<>(atSink).size(), "no record duplicated at " + file);
        }
        // the first interval with data holds the connect and slow start, the last the tail; the median is the steady
        // state
        return new Throughput(median(named), median(all), shown, lines);
    }

    /**
     * A worker with consumer.receive.buffer.bytes=65536 and the REST extension, across this link from a broker whose topic
     * (2 partitions, 100 records) a 2-task FileStreamSink "&lt;topic&gt;-sink" starts reading into &lt;topic&gt;.txt.
     */
    static LabConnectWorker smallBufferWorkerWithSink(KernelLabExtension labs, Link link, String topic)
            throws Exception {
        KernelLab lab = labs.start(KernelLab.builder().link(link).clientInNamespace());
        KafkaBroker broker = KafkaBroker.start(lab, Map.of());
        if (!link.roundTrip().isZero()) {
            lab.takeIdleLine(); // for the RTT its findings quote; a 0 ms line's worker quotes none
        }
        LabTopics.create(broker, topic, 2);
        produce(broker, topic, 100);
        LabConnectWorker worker = LabConnectWorker.startWithJmx(
                lab,
                broker,
                Map.of(
                        "rest.extension.classes",
                        EXTENSION,
                        "consumer.receive.buffer.bytes",
                        "65536",
                        "tcpsight.sample.interval.ms",
                        Long.toString(INTERVAL_MS)));
        worker.put(
                "/connectors/" + topic + "-sink/config",
                Map.of(
                        "connector.class",
                        "org.apache.kafka.connect.file.FileStreamSinkConnector",
                        "tasks.max",
                        "2",
                        "topics",
                        topic,
                        "file",
                        worker.directory().resolve(topic + ".txt").toString()));
        return worker;
    }

    /**
     * Waits until the connector's consumer group is stable with every task a member holding a
     * partition: the last assignment, and with it the last leader connection, is then made.
     */
    static long awaitGroupSettled(KafkaBroker broker, String group, int members) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            AtomicReference<String> last = new AtomicReference<>("");
            LabAwait.await("group " + group + " settled with " + members + " members holding partitions")
                    .atMost(Duration.ofSeconds(180))
                    .every(Duration.ofMillis(100))
                    .explainedBy(last::get)
                    .untilTrue(() -> {
                        ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group))
                                .all()
                                .get()
                                .get(group);
                        long holding = description.members().stream()
                                .filter(member ->
                                        !member.assignment().topicPartitions().isEmpty())
                                .count();
                        last.set(description.groupState() + ", "
                                + description.members().size() + " members, " + holding + " holding partitions");
                        return description.groupState() == GroupState.STABLE && holding == members;
                    });
            return System.nanoTime();
        }
    }

    static long awaitRunning(LabConnectWorker worker, String connector, int tasks) throws Exception {
        worker.awaitRunning(connector, tasks, Duration.ofSeconds(180));
        return System.nanoTime();
    }

    static List<String> awaitLines(Path file, int lines) throws Exception {
        AtomicReference<List<String>> seen = new AtomicReference<>(List.of());
        List<String> read = LabAwait.await(lines + " records at the sink " + file)
                .atMost(Duration.ofSeconds(120))
                .explainedBy(() -> seen.get().size() + " there")
                .until(() -> {
                    seen.set(Files.exists(file) ? Files.readAllLines(file) : List.of());
                    return seen.get().size() >= lines ? seen.get() : null;
                });
        assertEquals(lines, read.size(), "records at the sink " + file);
        assertEquals(lines, new HashSet<>(read).size(), "no record duplicated at the sink");
        assertFalse(read.isEmpty());
        return read;
    }

    static void produce(KafkaBroker broker, String topic, int records) {
        DeliveryCheck delivered = new DeliveryCheck(topic);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(LabTopics.setupProducer(broker), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, topic + "-record-" + i), delivered);
            }
        }
        delivered.assertAllDelivered();
    }
}
