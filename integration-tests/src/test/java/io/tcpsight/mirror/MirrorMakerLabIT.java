package io.tcpsight.mirror;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.ClientConfigDump;
import io.tcpsight.lab.ConnectionView;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.HostStalls;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KafkaCluster;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabConnectWorker;
import io.tcpsight.lab.LabRounds;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.Together;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * MirrorMaker 2 in a Connect worker, with the plugin alone: the worker and its near cluster share
 * the lab's client namespace, the far cluster a long round trip away across the lab's line, and a
 * MirrorSourceConnector with Kafka's defaults pulls a topic from it.
 */
@ResourceLock(HostCpu.LOCK)
class MirrorMakerLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final String CONNECTOR = "mm2-far";
    /**
     * 50 Mbit/s, not 100 or 200: the far brokers, the delay line, the worker's three tasks and the
     * near broker share the host's two CPUs. At 200 they took them whole (idle 5 % of the adapted
     * transfer, 2026-11-29). At 100 the tasks' first forwarded polls took them whole for about six
     * seconds of each transfer, the rate on the line swung between 47 and 127 Mbit/s in those seconds
     * (stalls, then their catch-up), and the project's CI read 76.6 % with the CPUs idle 20 %
     * (2026-12-04). At 50 the CPUs were idle 47-54 % of the transfer, and the rate held 41-49 Mbit/s a
     * second at a time but for the last seconds (docs/lab.md): the rate is
     * the placeholders' that this test is about, not the CPUs'.
     */
    private static final int LINE_MBIT = 50;
    /**
     * 200 ms, so the path's bandwidth-delay product stays 1.25 MB, as at 100 Mbit/s and 100 ms, and a
     * window too small for it still shows on the line: at 200 ms a replication consumer given
     * receive.buffer.bytes=131072 read 65.3 % (its six connections' windows of about 128 KiB a round
     * trip carry 31 Mbit/s), where at 100 ms the same windows would carry 63, above the floor. The
     * defaults' ceiling (15.8 Mbit/s) stays below the floor (40).
     */
    private static final int RTT_MS = 200;

    private static final int BULK_RECORDS = 125_000;
    private static final int DEFAULTS_WINDOW_SECONDS = 10;
    private static final int RECORD_BYTES = 1_000;
    /** A far cluster as production runs one: three brokers, each leading two of the topic's partitions. */
    private static final int FAR_BROKERS = 3;

    private static final int PARTITIONS = 6;
    private static final String REPLICATION_CONSUMER = "far->near|" + CONNECTOR + "-0|replication-consumer";

    @Test
    void thePluginNamesTheReplicationConsumerToTheFarClusterAndNothingElse() throws Exception {
        FarAndNear clusters = FarAndNear.start(LAB, 5_000);
        KernelLab lab = clusters.lab();
        KafkaBroker far = clusters.far();
        KafkaBroker near = clusters.near();
        // names, keys and findings within bounds far above what they take: the worker compiles with C1 alone
        try (LabConnectWorker worker = LabConnectWorker.startShortLived(
                lab,
                near,
                Map.of(
                        "rest.extension.classes", "io.tcpsight.connect.TcpsightRestExtension",
                        "tcpsight.sample.interval.ms", "1000"),
                null)) {
            worker.put("/connectors/" + CONNECTOR + "/config", mirrorSource(far.bootstrapServers(), near, Map.of()));
            worker.awaitRunning(CONNECTOR, 1, Duration.ofSeconds(120));
            long started = System.nanoTime();
            FindingView finding = LabAwait.await("small-receive-buffer for the replication consumer")
                    .atMost(Duration.ofSeconds(45))
                    .every(Duration.ofMillis(500))
                    .explainedBy(() -> "worker output:\n" + worker.process().output())
                    .until(() -> FindingView.list(worker.getText("/tcpsight/findings")).stream()
                            .filter(f -> f.is("small-receive-buffer")
                                    && f.severity().equals("critical")
                                    && REPLICATION_CONSUMER.equals(
                                            f.connection().clientId()))
                            .findFirst()
                            .orElse(null));
            double seconds = (System.nanoTime() - started) / 1e9;
            LabRounds.awaitMore("the plugin", () -> worker.getText("/tcpsight/metrics"), 3);
            List<FindingView> findings = FindingView.list(worker.getText("/tcpsight/findings"));
            List<ConnectionView> connections = ConnectionView.list(worker.getText("/tcpsight/connections?top=200"));
            Map<String, String> mirrorConnections = new LinkedHashMap<>();
            for (ConnectionView connection : connections) {
                if (connection.clientId() != null && connection.clientId().contains("->")) {
                    mirrorConnections.put(
                            connection.clientId() + " node "
                                    + connection.connection().nodeId(),
                            connection.connection().remote() + " flow "
                                    + connection.connection().flow());
                }
            }
            List<String> keys = new ArrayList<>();
            finding.remedy().settings().forEach(s -> keys.add(s.scope() + ": " + s.key() + "=" + s.value()));
            List<String> others = findings.stream()
                    .filter(f -> !f.severity().equals("info")
                            && f.connection().clientId() != null
                            && f.connection().clientId().contains("->")
                            && !REPLICATION_CONSUMER.equals(f.connection().clientId()))
                    .map(f ->
                            f.rule() + " " + f.severity() + " " + f.connection().clientId())
                    .collect(Collectors.toList());
            System.out.printf(
                    "MM2 in Connect: %s %s for %s (cluster %s, node %s) %.1f s after the task ran; remedy %s%n",
                    finding.rule(),
                    finding.severity(),
                    finding.connection().clientId(),
                    finding.connection().cluster(),
                    finding.connection().nodeId(),
                    seconds,
                    keys);
            System.out.println("MM2 in Connect: its connections " + mirrorConnections);
            System.out.println("MM2 in Connect: warn or critical findings for its other clients " + others);
            assertEquals("far", finding.connection().cluster());
            assertEquals(CONNECTOR, finding.connection().connector());
            assertEquals("replication-consumer", finding.connection().mirrorRole());
            assertEquals("to_client", finding.connection().flow());
            lab.idleLine().assertQuoted(finding.number("rtt"), finding.brief());
            assertTrue(
                    keys.contains("connector " + CONNECTOR + ": source.consumer.receive.buffer.bytes=-1"),
                    keys.toString());
            assertTrue(keys.contains("mm2.properties: far.consumer.receive.buffer.bytes=-1"), keys.toString());
            assertTrue(
                    others.isEmpty(),
                    "no warn or critical finding for MM2's clients that carry no bulk data: " + others);
            assertTrue(
                    mirrorConnections.keySet().stream().anyMatch(name -> name.contains("|replication-source-admin")),
                    "the connector's admin to the far cluster is observed too: " + mirrorConnections);

            // The same connector, the far cluster moved to a 0 ms line: nothing left to find.
            lab.changeOneWayDelay(Duration.ZERO);
            long moved = System.nanoTime();
            List<String> left = new ArrayList<>();
            LabAwait.await("no finding for MM2's clients at 0 ms")
                    .atMost(Duration.ofSeconds(45))
                    .every(Duration.ofMillis(500))
                    .explainedBy(left::toString)
                    .untilTrue(() -> {
                        left.clear();
                        for (FindingView f : FindingView.list(worker.getText("/tcpsight/findings"))) {
                            if (!f.severity().equals("info")
                                    && f.connection().clientId() != null
                                    && f.connection().clientId().contains("->")) {
                                left.add(f.rule() + " " + f.connection().clientId() + " rtt " + f.number("rtt"));
                            }
                        }
                        return left.isEmpty();
                    });
            System.out.printf(
                    "MM2 in Connect: no warn or critical finding for its clients %.1f s after the line went to 0 ms%n",
                    (System.nanoTime() - moved) / 1e9);
        }
    }

    /**
     * Replication of a pre-filled 125 MB topic from a far cluster of three brokers across the
     * {@link #RTT_MS} ms line of {@link #LINE_MBIT} Mbit/s: Kafka's defaults for 10 s, then the same connector with
     * {@code ${tcpsight:fetch/far:...}} values for the far cluster, to the end. Every record
     * reaches the target once.
     */
    @Test
    void placeholdersForTheFarClusterMultiplyReplicationThroughput() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                // A queue of 4,000 packets at 50 Mbit/s and 200 ms (4.8 bandwidth-delay products), a router's buffer:
                // BBR keeps up
                // to two BDPs in flight, so a queue of 1.2 BDPs (the lab's default of 1,000 packets, at 100 Mbit/s)
                // dropped 4-7 % of the far brokers' packets every run, and the rate spread over 72.6-95.8 % of the
                // line (lab.md)
                .link(Link.rtt(Duration.ofMillis(RTT_MS)).rateMbit(LINE_MBIT).queuePackets(4000))
                .clientInNamespace()
                // the far brokers' hosts may hold two BDPs in flight, and do not restart slow start
                // between fetch responses (Linux's tcp_wmem max of 4 MiB and idle restart otherwise)
                .serverSysctl("net.ipv4.tcp_wmem", "4096 16384 33554432")
                .serverSysctl("net.ipv4.tcp_slow_start_after_idle", 0));
        // The far brokers send with an autotuned buffer: Kafka's broker default (102400, 8.2 Mbit/s over 100 ms by
        // the rules' arithmetic and 14.6 measured there, 4.1 over 200 by the same arithmetic) would cap each
        // connection whatever the consumer does; that is the broker agent's small-send-buffer finding, not this
        // test's subject.
        // the near broker starts beside the far cluster: both are setup, on either side of the line
        List<AutoCloseable> started = Together.start(List.<Callable<AutoCloseable>>of(
                () -> KafkaCluster.inLab(
                        lab,
                        FAR_BROKERS,
                        Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1")),
                () -> KafkaBroker.inLab(lab).onClientSide().start()));
        KafkaCluster far = (KafkaCluster) started.get(0);
        KafkaBroker near = (KafkaBroker) started.get(1);
        LabTopics.create(far.node(1), "orders", PARTITIONS);
        // the topic is filled beside the far brokers while the worker starts beside the near one: both are
        // setup, and every window below starts once both are done
        try (LabConnectWorker worker = Together.startWhile(
                () -> LabConnectWorker.start(
                        lab,
                        near,
                        Map.of(
                                "config.providers",
                                "tcpsight",
                                "config.providers.tcpsight.class",
                                "io.tcpsight.connect.TcpsightConfigProvider",
                                "config.providers.tcpsight.param.tcpsight.target.throughput.mbit",
                                Integer.toString(LINE_MBIT),
                                "config.providers.tcpsight.param.tcpsight.cluster.far.bootstrap.servers",
                                far.bootstrapServers())),
                () -> {
                    LabTopics.fillBesideBroker(lab, far.node(1), "orders", BULK_RECORDS, RECORD_BYTES);
                    return null;
                })) {
            // what crosses the line: the record batches as the log holds them, a fetch response's bulk
            long logBytes = LabTopics.logBytes(far.node(1), "orders");
            // Kafka's defaults (one task), source alias "far": records land in far.orders
            worker.put("/connectors/mm2-defaults/config", mirrorSource(far.bootstrapServers(), near, Map.of()));
            worker.awaitRunning("mm2-defaults", 1, Duration.ofSeconds(120));
            long before = LabTopics.endOffsets(near, "far.orders");
            // a measurement window: time itself is the subject. 10 s at the defaults' 9 Mbit/s on the line is
            // about 11,000 records; 20 s gave the same rate (docs/benchmarks.md) and cost 10 s more
            // The rate the defaults' window allows is read on the line too (the bytes the worker's side acknowledged
            // after the first 2 s), as the adapted side's is: record counts over the window come in bursts.
            Thread.sleep(2000);
            long defaultsFromBytes = lab.serverBytesAckedByClient();
            long defaultsFrom = System.nanoTime();
            Thread.sleep((DEFAULTS_WINDOW_SECONDS - 2) * 1000L);
            double defaultsLineMbit = (lab.serverBytesAckedByClient() - defaultsFromBytes)
                    * 8
                    / 1e6
                    / ((System.nanoTime() - defaultsFrom) / 1e9);
            long defaultsRecords = LabTopics.endOffsets(near, "far.orders") - before;
            worker.delete("/connectors/mm2-defaults");
            double defaultsMbit =
                    defaultsRecords * (double) logBytes / BULK_RECORDS * 8 / 1e6 / DEFAULTS_WINDOW_SECONDS;

            // The placeholders, source alias "fast" (so its records land in fast.orders, from the start)
            Map<String, String> adapted = new LinkedHashMap<>();
            adapted.put("source.cluster.alias", "fast");
            // A task's consumer asks a broker for more only when the task's thread is back in poll():
            // while one task forwards a poll of every broker's response, the brokers whose responses
            // are in wait. A task per far broker forwards in parallel (the runbook's advice).
            adapted.put("tasks.max", Integer.toString(FAR_BROKERS));
            for (String key : List.of(
                    "max.partition.fetch.bytes", "fetch.max.bytes", "receive.buffer.bytes", "max.poll.records")) {
                adapted.put("source.consumer." + key, "${tcpsight:fetch/far:" + key + "}");
            }
            // Connect's source producer sends one request at a time (max.in.flight 1, acks all): with
            // 16 KiB batches it cannot keep up with the far side even next to the target
            adapted.put("producer.override.batch.size", "1048576");
            adapted.put("producer.override.linger.ms", "5");
            worker.put("/connectors/mm2-adapted/config", mirrorSource(far.bootstrapServers(), near, adapted));
            worker.awaitRunning("mm2-adapted", FAR_BROKERS, Duration.ofSeconds(120));
            long running = System.nanoTime();
            HostStalls host = HostStalls.read();
            long ackedBefore = lab.serverBytesAckedByClient();
            // what the line adds over the transfer (its queue, a late wake-up) and drops, for a failure to name
            lab.restartLineMaxima();
            KernelLab.Dropped droppedBefore = lab.packetsNotDelivered();
            // The steady rate is read on the line: the far side's bytes acknowledged by the worker's
            // side since the task ran. Records reach the target in bursts of whole fetch responses,
            // so a rate from the count there swings by a response either way (it read 115% of the
            // line once, with four tasks buffering 88 MB between them). Each second's rate is kept beside
            // what the host's CPUs did in it.
            Timeline line = new Timeline(running, host);
            // The far brokers' sockets halfway through (cwnd, retransmissions, what limited them), read where the
            // rate fell below its floor with the CPUs idle (docs/lab.md)
            String[] farSocketsHalfway = {null};
            try (Admin target = LabTopics.admin(near)) {
                LabAwait.await("all " + BULK_RECORDS + " records in fast.orders")
                        .atMost(Duration.ofMinutes(5))
                        .every(Duration.ofMillis(100))
                        .explainedBy(() -> "a second at a time (Mbit/s on the line, the host's CPUs, ms): " + line)
                        .untilTrue(() -> {
                            long acked = lab.serverBytesAckedByClient() - ackedBefore;
                            line.sample(System.nanoTime(), acked);
                            if (acked >= logBytes / 2 && farSocketsHalfway[0] == null) {
                                // each of six connections has carried about a twelfth of the log by then
                                farSocketsHalfway[0] = lab.busyServerSockets(logBytes / 24);
                            }
                            return LabTopics.endOffsets(target, "fast.orders") >= BULK_RECORDS;
                        });
            }
            System.out.println("MM2 adapted, the far side's busy sockets halfway (ss -tin):\n" + farSocketsHalfway[0]);
            System.out.println("MM2 adapted, a second at a time (Mbit/s on the line, the host's CPUs, ms): " + line);
            double seconds = (System.nanoTime() - running) / 1e9;
            String hostMeanwhile = HostStalls.read().busySince(host);
            KernelLab.Dropped dropped = lab.packetsNotDelivered().since(droppedBefore);
            String lineMeanwhile = "the line held " + lab.lineHeldSoFar() + " and dropped "
                    + dropped.towardTheClient() + " packets toward the worker's side, "
                    + dropped.towardTheServer() + " toward the far side";
            double adaptedMbit = logBytes * 8 / 1e6 / seconds;
            double lineMbit = steadySlope(line.samples(), logBytes) * 8 / 1e6;
            long distinct = LabTopics.distinctRecordPrefixes(near, "fast.orders", 11);
            long total = LabTopics.endOffsets(near, "fast.orders");
            String given = consumerSettings(worker.process().output(), "fast->near");
            System.out.printf(
                    "MM2 replication at %d ms, %d Mbit/s, %d MB of records in %d partitions on %d far brokers"
                            + " (%d bytes of log): defaults, 1 task, %.1f Mbit/s (%.1f%% of the line); adapted, %d tasks, %.1f Mbit/s (%.1f%%)"
                            + " from the tasks running to the last record at the target (%.1f s), %.1f Mbit/s (%.1f%%)"
                            + " on the line from a tenth to nine tenths; %s; %d records at the target, %d distinct;"
                            + " meanwhile %s%n",
                    RTT_MS,
                    LINE_MBIT,
                    BULK_RECORDS * (long) RECORD_BYTES / 1_000_000,
                    PARTITIONS,
                    FAR_BROKERS,
                    logBytes,
                    defaultsMbit,
                    100 * defaultsMbit / LINE_MBIT,
                    FAR_BROKERS,
                    adaptedMbit,
                    100 * adaptedMbit / LINE_MBIT,
                    seconds,
                    lineMbit,
                    100 * lineMbit / LINE_MBIT,
                    given,
                    total,
                    distinct,
                    hostMeanwhile);
            assertEquals(BULK_RECORDS, total, "none lost, none duplicated");
            assertEquals(BULK_RECORDS, distinct, "every record once");
            assertTrue(
                    given.contains("receive.buffer.bytes=-1") && !given.contains("max.partition.fetch.bytes=1048576"),
                    "the far placeholders reached the replication consumer: " + given);
            // a poll takes a whole 50 MiB response of 1 KiB records from each of the three brokers
            // the far cluster's bootstrap list names
            assertTrue(given.contains("max.poll.records=153600"), given);
            // Each side against the path's arithmetic, never one against the other's luck (a fast defaults run once
            // made "adapted > 10x defaults" fail at 9.95x while the adapted flow made 84.9% of the line): on the line,
            // the defaults' consumer (receive.buffer.bytes=65536) moves at most the kernel's whole allotment for that
            // setting, twice it, a round trip (no less than the nominal less 0.5 ms, LineHold) from each far broker.
            // Not the setting
            // itself: this kernel's window took more of the allotment than that (17.6 Mbit/s on the line against
            // 15.8 for 65536 bytes a round trip at 100 ms, 2026-11-28; 8.8-9.1 against 7.9 at 200 ms, 2026-12-04).
            double defaultsCeilingMbit = FAR_BROKERS * 2 * 65_536 * 8 / ((RTT_MS - 0.5) / 1000) / 1e6;
            System.out.printf(
                    "MM2 defaults on the line: %.1f Mbit/s against their windows' %.1f%n",
                    defaultsLineMbit, defaultsCeilingMbit);
            assertTrue(
                    defaultsLineMbit <= defaultsCeilingMbit,
                    "defaults " + defaultsLineMbit + " Mbit/s on the line, above their windows' "
                            + defaultsCeilingMbit);
            // The goal is 90% of the line: at 200 Mbit/s three tasks read 87.2-93.7% on the line (median 91.1%), the
            // rest going to the far BBR flows' retransmissions of what the line's queue dropped
            // (docs/benchmarks.md); one task read 82-89%; at 100 Mbit/s 84.2-94.1%; at 50 Mbit/s 93.0-93.9% (100 ms)
            // and 93.2% (200 ms, 2026-12-04). The floor is below them, for a noisy machine.
            assertTrue(
                    lineMbit >= 0.80 * LINE_MBIT,
                    "adapted, on the line " + lineMbit + " Mbit/s; meanwhile " + hostMeanwhile + "; " + lineMeanwhile
                            + "; a second at a time (Mbit/s on the line, the host's CPUs, ms): " + line
                            + "; the far side's busy sockets halfway: " + Timeline.brief(farSocketsHalfway[0]));
            Files.writeString(
                    Path.of("target", "mm2-replication.csv"),
                    String.format(
                            Locale.ROOT,
                            "rtt_ms,defaults_mbit,adapted_line_mbit,adapted_whole_mbit,line_mbit%n%d,%.1f,%.1f,%.1f,%d%n",
                            RTT_MS,
                            defaultsMbit,
                            lineMbit,
                            adaptedMbit,
                            LINE_MBIT));
        }
    }

    /**
     * The bytes acknowledged on the line as they were read, (time, bytes) a sample, and their rate a
     * second at a time, each beside what the host's CPUs did in that second (idle share, steal,
     * pressure stall): whether a slow transfer dipped when the host did, or crawled throughout.
     */
    static final class Timeline {
        private final List<long[]> samples = new ArrayList<>();
        private final StringBuilder seconds = new StringBuilder();
        private long from;
        private long ackedFrom;
        private HostStalls host;

        Timeline(long from, HostStalls host) {
            this.from = from;
            this.host = host;
        }

        void sample(long now, long acked) {
            samples.add(new long[] {now, acked});
            if (now - from < 1_000_000_000L) {
                return;
            }
            HostStalls stalls = HostStalls.read();
            seconds.append(String.format(
                    Locale.ROOT,
                    "%.0f (%s) ",
                    (acked - ackedFrom) * 8 / 1e6 / ((now - from) / 1e9),
                    stalls.stepSince(host)));
            from = now;
            ackedFrom = acked;
            host = stalls;
        }

        List<long[]> samples() {
            return samples;
        }

        @Override
        public String toString() {
            return seconds.toString().trim();
        }

        /**
         * An ss line of each socket cut to what says what limited it: its two ends, bytes, cwnd, RTT,
         * retransmissions and limits.
         */
        static String brief(String sockets) {
            if (sockets == null || !sockets.contains("|")) {
                return sockets == null ? "not read" : sockets.trim();
            }
            List<String> kept = new ArrayList<>();
            for (String socket : sockets.split("\n")) {
                String[] fields = socket.trim().split("\\s+");
                if (fields.length < 4) {
                    continue;
                }
                StringBuilder one = new StringBuilder(fields[2]).append('>').append(fields[3]);
                for (String field : fields) {
                    if (field.startsWith("bytes_acked:")
                            || field.startsWith("cwnd:")
                            || field.startsWith("rtt:")
                            || field.startsWith("retrans:")
                            || field.startsWith("rwnd_limited:")
                            || field.startsWith("sndbuf_limited:")
                            || field.startsWith("notsent:")) {
                        one.append(' ').append(field);
                    }
                }
                kept.add(one.toString());
            }
            return kept.toString();
        }
    }

    /**
     * Bytes per second: the least-squares slope of (time, bytes) samples while between a tenth and
     * nine tenths of the whole had crossed, so neither the ramp-up nor the last stragglers count.
     */
    static double steadySlope(List<long[]> samples, long whole) {
        double n = 0;
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        long origin = samples.get(0)[0];
        for (long[] sample : samples) {
            if (sample[1] < whole / 10 || sample[1] > whole * 9 / 10) {
                continue;
            }
            double x = (sample[0] - origin) / 1e9;
            double y = sample[1];
            n++;
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
        }
        if (n < 2) {
            return Double.NaN; // too few samples in the window: no rate, and the floor fails
        }
        return (n * sxy - sx * sy) / (n * sxx - sx * sx);
    }

    /** What the replication consumer of the given flow was built with, as its ConsumerConfig dump says. */
    static String consumerSettings(String workerOutput, String flow) {
        ClientConfigDump latest = null;
        for (ClientConfigDump dump : ClientConfigDump.all(workerOutput, "Consumer")) {
            String clientId = String.valueOf(dump.get("client.id"));
            if (clientId.contains(flow) && clientId.contains("replication-consumer")) {
                latest = dump;
            }
        }
        return latest == null
                ? "{}"
                : latest.values(
                                "fetch.max.bytes",
                                "max.partition.fetch.bytes",
                                "max.poll.records",
                                "receive.buffer.bytes")
                        .toString();
    }

    /** A MirrorSourceConnector from far to near for the topic orders, with Kafka's defaults unless given. */
    static Map<String, String> mirrorSource(String far, KafkaBroker near, Map<String, String> more) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("connector.class", "org.apache.kafka.connect.mirror.MirrorSourceConnector");
        config.put("tasks.max", "1");
        config.put("source.cluster.alias", "far");
        config.put("target.cluster.alias", "near");
        config.put("source.cluster.bootstrap.servers", far);
        config.put("target.cluster.bootstrap.servers", near.bootstrapServers());
        config.put("topics", "orders");
        config.put("replication.factor", "1");
        config.put("offset-syncs.topic.replication.factor", "1");
        config.put("sync.topic.acls.enabled", "false");
        config.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.putAll(more);
        return config;
    }
}
