package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.AtOnce;
import io.tcpsight.lab.ConnectionView;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabConnectWorker;
import io.tcpsight.lab.LabTls;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Phaser;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Every name the Connect plugin gives a socket, checked against the broker agent's name for the
 * same 4-tuple (the broker names each connection from Kafka's own requests). Per security
 * protocol (the three at once, each in a lab of its own), two workers 100 ms from one broker run side by side, one with the tcpsight agent in
 * its JVM and one without, each with a sink connector whose consumers have a 64 KiB buffer
 * ("slow") and one whose buffers autotune ("fast"). Required: no wrong name, the slow connector
 * named at warn or critical with its override key, nothing at warn or critical on the fast one,
 * and no warning without an owner.
 */
@ResourceLock(HostCpu.LOCK)
class CertainNamesLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final String EXTENSION = "io.tcpsight.connect.TcpsightRestExtension";
    /** 6 MB: the 64 KiB consumers stream for the first seconds of the window, so busy sockets are named too. */
    private static final int RECORDS = 6_000;
    /** Seconds of comparison: a name comes three exact rounds (1 s each) after the census sees a socket. */
    private static final int WINDOW_SECONDS = 12;

    private static final int RECORD_BYTES = 1000;

    /**
     * The protocols at once, each in a lab of its own, on threads of this class's own; a test per
     * protocol reports its run's outcome. Their claims are names and findings, and their brokers and
     * workers compile with C1 alone: one after another they kept the host's two CPUs 48 % busy for
     * 104 s (a 5 s sampler beside a fresh clone of `bb2b6c6`, 2026-11-30). The class still takes the
     * host whole, so nothing else runs beside the three.
     */
    @TestFactory
    Stream<DynamicTest> everyNameThePluginGivesIsTheBrokersAndTheSlowConnectorIsNamedByItsSettings() {
        Map<String, AtOnce.Run> runs = new LinkedHashMap<>();
        Phaser idleLines = new Phaser(PROTOCOLS.size());
        PROTOCOLS.forEach(protocol -> runs.put(protocol, () -> namesAndFindings(protocol, idleLines)));
        return AtOnce.tests("certain-names", PROTOCOLS.size(), PROTOCOL_BOUND, LAB, runs);
    }

    private static final List<String> PROTOCOLS = List.of("PLAINTEXT", "SSL", "SASL_SSL");

    /**
     * Longer than a protocol's own bounds add up to: the workers' start (120 s, together), four
     * connectors' 90 s each, the broker's start and the 12 s window.
     */
    private static final Duration PROTOCOL_BOUND = Duration.ofMinutes(10);

    /**
     * One protocol's run. Its line's idle reading waits for every protocol's broker to be up, and no
     * worker starts before every line was read: a JVM starting beside a line is what delays it
     * (docs/lab.md). A run that fails before leaves the others to go on without it.
     */
    private static void namesAndFindings(String protocol, Phaser idleLines) throws Exception {
        boolean[] waitedFor = {true};
        try {
            namesAndFindingsOnceTheLinesAreRead(
                    protocol,
                    () -> {
                        idleLines.arriveAndAwaitAdvance(); // every protocol's broker is up
                    },
                    () -> {
                        idleLines.arriveAndAwaitAdvance(); // every protocol's line is read
                        idleLines.arriveAndDeregister();
                        waitedFor[0] = false;
                    });
        } finally {
            if (waitedFor[0]) {
                idleLines.arriveAndDeregister();
            }
        }
    }

    private static void namesAndFindingsOnceTheLinesAreRead(String protocol, Runnable brokersUp, Runnable linesRead)
            throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(100)).rateMbit(200))
                .clientInNamespace());
        // names and findings, no rate: the broker and workers compile with C1 alone (LabJvm.SHORT_LIVED)
        KafkaBroker.Builder builder = KafkaBroker.inLab(lab).shortLivedJvm().agent("");
        if (!protocol.equals("PLAINTEXT")) {
            LabTls tls = LabTls.forBroker(lab.serverAddress(), "names-" + protocol.toLowerCase());
            builder =
                    protocol.equals("SSL") ? builder.mutualTls(tls) : builder.saslOverTls(tls, "admin", "admin-secret");
        }
        try (KafkaBroker broker = builder.start()) {
            brokersUp.run();
            lab.takeIdleLine();
            linesRead.run();
            LabTopics.create(broker, "names", 2);
            LabTopics.fill(broker, "names", RECORDS, RECORD_BYTES);
            List<LabConnectWorker> started =
                    Together.start(List.of(() -> worker(lab, broker, 8083, null), () -> worker(lab, broker, 8084, "")));
            try (LabConnectWorker plain = started.get(0);
                    LabConnectWorker hooked = started.get(1)) {
                Map<String, LabConnectWorker> workers = new LinkedHashMap<>();
                workers.put("without the agent", plain);
                workers.put("with the agent", hooked);
                for (LabConnectWorker worker : workers.values()) {
                    sink(worker, "slow", "65536");
                    sink(worker, "fast", "-1");
                }
                for (LabConnectWorker worker : workers.values()) {
                    worker.awaitRunning("slow", 2, Duration.ofSeconds(90));
                    worker.awaitRunning("fast", 2, Duration.ofSeconds(90));
                }
                Map<String, Tally> tallies = new LinkedHashMap<>();
                workers.keySet().forEach(key -> tallies.put(key, new Tally()));
                long end =
                        System.nanoTime() + Duration.ofSeconds(WINDOW_SECONDS).toNanos();
                while (System.nanoTime() < end) {
                    Map<String, String> brokerNames = brokerNames(broker);
                    for (Map.Entry<String, LabConnectWorker> worker : workers.entrySet()) {
                        tallies.get(worker.getKey()).add(worker.getValue(), brokerNames);
                    }
                    Thread.sleep(1000);
                }
                for (Map.Entry<String, LabConnectWorker> entry : workers.entrySet()) {
                    LabConnectWorker worker = entry.getValue();
                    Tally tally = tallies.get(entry.getKey());
                    List<FindingView> findings = FindingView.list(worker.getText("/tcpsight/findings"));
                    System.out.printf(
                            "names %s %s: right %d, wrong %d, unplaced %d (distinct sockets over %d s); findings %s%n",
                            protocol,
                            entry.getKey(),
                            tally.right.size(),
                            tally.wrong.size(),
                            tally.unplaced.size(),
                            WINDOW_SECONDS,
                            briefs(findings));
                    assertTrue(
                            tally.wrong.isEmpty(),
                            "wrong names " + protocol + " " + entry.getKey() + ": " + tally.wrong);
                    if (worker == hooked) {
                        assertTrue(tally.right.size() >= 4, "the agent names every task socket: " + tally.right);
                    }
                    FindingView slow = findings.stream()
                            .filter(f -> "slow".equals(f.connection().connector())
                                    && f.is("small-receive-buffer")
                                    && !f.severity().equals("info"))
                            .findFirst()
                            .orElseThrow(() -> new AssertionError("the slow connector is not named: " + findings));
                    lab.idleLine().assertQuoted(slow.number("rtt"), slow.brief());
                    assertTrue(
                            slow.remedy().settings().stream()
                                    .anyMatch(s -> s.key() != null
                                            && s.key().equals("consumer.override.receive.buffer.bytes")
                                            && s.value().equals("-1")),
                            slow.brief());
                    for (FindingView finding : findings) {
                        if (finding.severity().equals("info")) {
                            continue;
                        }
                        assertTrue(finding.connection().clientId() != null, "a warning without an owner: " + finding);
                        assertTrue(!"fast".equals(finding.connection().connector()), "the fast connector: " + finding);
                    }
                }
            }
        }
    }

    /** Which sockets each worker named rightly, wrongly, or left unplaced, by local address. */
    private static final class Tally {
        final Set<String> right = new TreeSet<>();
        final Set<String> wrong = new TreeSet<>();
        final Set<String> unplaced = new TreeSet<>();

        void add(LabConnectWorker worker, Map<String, String> brokerNames) throws Exception {
            for (ConnectionView connection : ConnectionView.list(worker.getText("/tcpsight/connections?top=1000"))) {
                String local = connection.connection().local();
                if ("unplaced".equals(connection.ownerKnownBy())) {
                    unplaced.add(local);
                    continue;
                }
                String truth = brokerNames.get(connection.connection().remote() + " " + local);
                String name = connection.clientId();
                if (truth == null || name == null) {
                    continue; // the broker has not named it (yet), or it closed
                }
                boolean same = name.endsWith("-*")
                        ? truth.startsWith(name.substring(0, name.length() - 1))
                        : name.equals(truth);
                (same ? right : wrong).add(local + " " + name + (same ? "" : " (broker: " + truth + ")"));
            }
        }
    }

    /** The broker agent's client.id for each connection, by "broker-address client-address". */
    private static Map<String, String> brokerNames(KafkaBroker broker) throws Exception {
        Map<String, String> names = new HashMap<>();
        for (ConnectionView connection : ConnectionView.list(broker.agentGet("/connections?top=1000"))) {
            if ("broker".equals(connection.role()) && connection.clientId() != null) {
                names.put(
                        connection.connection().local() + " "
                                + connection.connection().remote(),
                        connection.clientId());
            }
        }
        return names;
    }

    private static List<String> briefs(List<FindingView> findings) {
        List<String> briefs = new ArrayList<>();
        findings.forEach(finding -> briefs.add(finding.rule() + "/" + finding.severity() + " "
                + finding.connection().clientId()));
        return briefs;
    }

    /**
     * A worker with the plugin, sampling every second, whose own and task clients all speak the
     * broker's protocol; with the agent in its JVM when {@code agent} is not null.
     */
    private static LabConnectWorker worker(KernelLab lab, KafkaBroker broker, int restPort, String agent)
            throws Exception {
        Map<String, String> config = new HashMap<>();
        config.put("listeners", "http://0.0.0.0:" + restPort);
        config.put("rest.extension.classes", EXTENSION);
        config.put("tcpsight.sample.interval.ms", "1000");
        // 50 Mbit/s: a default 1 MiB partition fetch is above the 625 KB BDP, so only the buffer limits
        config.put("tcpsight.target.throughput.mbit", "50");
        broker.adminSecurity().forEach((key, value) -> {
            config.put(key, value);
            for (String prefix : List.of("consumer.", "producer.", "admin.")) {
                config.put(prefix + key, value);
            }
        });
        return LabConnectWorker.startShortLived(lab, broker, config, agent);
    }

    private static void sink(LabConnectWorker worker, String name, String receiveBuffer) throws Exception {
        worker.put(
                "/connectors/" + name + "/config",
                Map.of(
                        "connector.class",
                        "org.apache.kafka.connect.file.FileStreamSinkConnector",
                        "tasks.max",
                        "2",
                        "topics",
                        "names",
                        "file",
                        worker.directory().resolve(name + ".txt").toString(),
                        "consumer.override.receive.buffer.bytes",
                        receiveBuffer));
    }
}
