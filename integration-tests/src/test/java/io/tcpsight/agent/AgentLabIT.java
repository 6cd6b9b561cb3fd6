package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabPeer;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabRounds;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.PrometheusServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The agent in a broker across the kernel delay line: it names the client whose TCP is the problem. */
class AgentLabIT {
    private static final Path ALERT_RULES = Path.of("..", "docs", "alerts", "tcpsight-alerts.yml");
    private static final int RECORDS = 3000;

    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    @Test
    void aConsumerWithA64KibBuffer100MsAwayIsReportedByClientIdAsReceiveWindowLimited() throws Exception {
        // A queue of 4,000 packets, 2.4 BDPs at 200 Mbit/s and 100 ms: with 1,000 (0.6 BDP) the autotuned control's
        // bursts overflowed it on a busy host (2,155 of 27,258 packets toward the consumer dropped, 2026-11-26; none
        // on a quiet one), and the retransmissions the drops caused were a true finding about that line.
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(100)).rateMbit(200).queuePackets(4000)));
        // The broker's own buffers autotune, so that only the consumer's window can be the limit.
        KafkaBroker broker = KafkaBroker.inLab(lab)
                .agent("interval=2s")
                .overrides(Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"))
                .start();
        lab.takeIdleLine();
        // written beside the broker: the consumers' flows across the line are the subject, and a producer here took
        // about 4.5 s to carry the 30 MB across it
        LabTopics.create(broker, "far", 1);
        LabTopics.fillBesideBroker(lab, broker, "far", RECORDS, 10_000);
        // tcpsight's alerting rules in a real Prometheus scraping the agent: silent while an autotuned consumer
        // replays the topic, pending (their "for" is minutes) once the 64 KiB consumer does
        FindingView finding;
        try (PrometheusServer prometheus = PrometheusServer.scraping(
                Map.of("tcpsight-agent", broker.agentUrl() + "/metrics"), List.of(ALERT_RULES))) {
            List<Map<String, String>> duringControl = new CopyOnWriteArrayList<>();
            List<String> controlFindings = new CopyOnWriteArrayList<>();
            // Prometheus is asked from a thread of its own: the classic consumer reads its socket only inside poll(),
            // so a query between polls would leave its receive buffer unread, its window closing, and the broker
            // window-limited by a consumer that was not reading, not by its buffer
            AtomicBoolean controlDone = new AtomicBoolean();
            AtomicInteger asked = new AtomicInteger();
            Thread watcher = new Thread(() -> {
                while (!controlDone.get()) {
                    try {
                        List<Map<String, String>> alerts = prometheus.alerts();
                        asked.incrementAndGet();
                        if (!alerts.isEmpty()) {
                            duringControl.addAll(alerts);
                            // what the agent said then, with its evidence: the cause, if this ever fails
                            controlFindings.add(broker.agentGet("/findings"));
                        }
                        Thread.sleep(500);
                    } catch (IOException unanswered) {
                        controlFindings.add("Prometheus or the agent did not answer: " + unanswered);
                    } catch (RuntimeException broken) {
                        duringControl.add(Map.of("the watcher failed", broken.toString()));
                        return;
                    } catch (InterruptedException stopped) {
                        return;
                    }
                }
            });
            // healthy: its buffer autotunes and one fetch carries more than a BDP (Kafka's default 1 MiB a partition
            // moves 84 Mbit/s at 100 ms, below the 100 Mbit/s target, and the agent judges the sizes a Fetch asks for)
            try (KafkaConsumer<byte[], byte[]> control = consumer(
                    broker,
                    "autotuned-consumer",
                    "-1",
                    Map.of(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "52428800"))) {
                control.subscribe(List.of("far"));
                watcher.start();
                int read = 0;
                long quietUntil = Long.MAX_VALUE;
                // the whole topic, then three of the agent's rounds (and Prometheus' evaluations) more
                while (System.nanoTime() < quietUntil) {
                    read += control.poll(Duration.ofMillis(200)).count();
                    if (read >= RECORDS && quietUntil == Long.MAX_VALUE) {
                        quietUntil = System.nanoTime() + Duration.ofSeconds(6).toNanos();
                    }
                }
            } finally {
                controlDone.set(true);
                watcher.join(10_000);
            }
            assertTrue(asked.get() >= 5, "Prometheus was asked for alerts " + asked + " times: " + controlFindings);
            assertEquals(
                    List.of(),
                    duringControl,
                    "alerts while an autotuned consumer replayed the topic; the agent's findings then: "
                            + controlFindings);
            try (KafkaConsumer<byte[], byte[]> consumer = consumer(broker, "far-consumer", "65536")) {
                consumer.subscribe(List.of("far"));
                finding = pollFindings(
                        broker,
                        consumer,
                        Duration.ofSeconds(25),
                        f -> f.is("receive-window-limited")
                                && "far-consumer".equals(f.connection().clientId()));
                List<Map<String, String>> seen = new ArrayList<>();
                Map<String, String> alert = LabAwait.await("TcpsightReceiveWindowLimited pending or firing")
                        .atMost(Duration.ofSeconds(15))
                        .every(Duration.ZERO)
                        .explainedBy(seen::toString)
                        .until(() -> {
                            consumer.poll(Duration.ofMillis(200));
                            seen.clear();
                            seen.addAll(prometheus.alerts());
                            return seen.stream()
                                    .filter(a -> "TcpsightReceiveWindowLimited".equals(a.get("alertname")))
                                    .findFirst()
                                    .orElse(null);
                        });
                System.out.println("alert during the 64 KiB replay: " + alert);
                assertRuleMetricsAreScraped(broker.agentGet("/metrics"));
                assertEquals("receive-window-limited", alert.get("rule"));
                // routed by the connection's tag set, as the finding names it
                assertEquals("broker", alert.get("role"), alert.toString());
                assertEquals("PLAINTEXT", alert.get("listener"), alert.toString());
                assertEquals(finding.severity().equals("critical") ? "critical" : "warning", alert.get("severity"));
                assertTrue(Set.of("pending", "firing").contains(alert.get("alertstate")), alert.toString());
            }
        }
        System.out.println("agent finding: " + finding);
        assertEquals("broker", finding.connection().role());
        assertEquals("PLAINTEXT", finding.connection().listener());
        lab.idleLine().assertQuoted(finding.number("rtt"), finding.brief());
        assertTrue(finding.number("peerWindow") <= 131_072, finding.toString());
        FindingView.Setting setting = finding.remedy().settings().get(0);
        assertEquals("receive.buffer.bytes", setting.key());
        assertEquals("-1", setting.value());
    }

    @Test
    void aSynBurstWithoutClientTimestampsShowsUnscaledConnectionsAndTheListenersSynCookies() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.oneWay(Duration.ofMillis(25)).rateMbit(200))
                .serverSysctl("net.ipv4.tcp_syncookies", 1)
                .serverSysctl("net.core.somaxconn", 4)
                .clientSysctl("net.ipv4.tcp_timestamps", 0));
        // counters, names and the kernel's window scaling, no rate: the broker compiles with C1 alone
        KafkaBroker broker = KafkaBroker.inLab(lab)
                .shortLivedJvm()
                .agent("interval=1s")
                .overrides(Map.of("socket.listen.backlog.size", "1"))
                .start();
        lab.javaInClient("burst", LabPeer.class, "burst", lab.serverAddress(), "9092", "64", "15000")
                .awaitLine("^connected \\d+ of \\d+$", Duration.ofSeconds(60));
        FindingView unscaled = pollFindings(broker, null, Duration.ofSeconds(20), f -> f.is("no-window-scaling"));
        // A finding that lived for one round only would be gone after three more.
        LabRounds.awaitMore("the agent", () -> broker.agentGet("/metrics"), 3);
        // The cookie counter is the namespace's; the listener is named by its own drops (SO_MEMINFO), and the
        // broker's other listener (CONTROLLER), which took no burst, by none.
        FindingView cookies = pollFindings(
                broker,
                null,
                Duration.ofSeconds(20),
                f -> f.is("syn-cookies") && "PLAINTEXT".equals(f.connection().listener()));
        List<FindingView> listenerFindings = FindingView.list(broker.agentGet("/findings")).stream()
                .filter(f -> f.is("syn-cookies") || f.is("listen-backlog-overflow"))
                .collect(Collectors.toList());
        System.out.println("listener findings: " + listenerFindings);
        assertTrue(
                listenerFindings.stream()
                        .anyMatch(f -> f.is("listen-backlog-overflow")
                                && "PLAINTEXT".equals(f.connection().listener())
                                && f.number("listenerDrops") > 0),
                "the burst's listener overflowed, by its own count: " + listenerFindings);
        assertTrue(
                listenerFindings.stream()
                        .allMatch(f -> "PLAINTEXT".equals(f.connection().listener())),
                "only the listener that took the burst is named: " + listenerFindings);
        System.out.println("agent findings: " + unscaled + "\n" + cookies);
        assertEquals("broker", unscaled.connection().role());
        assertTrue(unscaled.connection().remote().startsWith(lab.clientAddress() + ":"));
        assertTrue(
                !unscaled.evidence().containsKey("rtt") || unscaled.number("rtt") < 1000,
                "no RTT sample yet is no RTT, not 71 minutes: " + unscaled);
        assertTrue(cookies.number("SyncookiesSent") > 0);
        assertEquals(1, cookies.number("effectiveBacklog"));
    }

    @Test
    void anAgentInAClientReportsAHandshakeThatWaitedForSynRetransmissions() throws Exception {
        // Without cookies a full accept queue drops SYNs; the client retransmits its first after 1 s.
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.oneWay(Duration.ofMillis(5)))
                .serverSysctl("net.ipv4.tcp_syncookies", 0)
                .serverSysctl("net.core.somaxconn", 1));
        LabProcess server = lab.javaInServer(
                "full-queue", LabPeer.class, "syn-server", lab.serverAddress(), "7200", "1", "stdin", "20000");
        server.awaitLine("^listening$", Duration.ofSeconds(20));
        List<SocketChannel> fillers = new ArrayList<>();
        for (int i = 0; i < 3; i++) { // a backlog of one holds two; the third waits in the SYN queue
            SocketChannel filler = SocketChannel.open();
            filler.configureBlocking(false);
            filler.connect(new InetSocketAddress(lab.serverAddress(), 7200));
            fillers.add(filler);
        }
        int agentPort = KafkaBroker.freePort();
        List<String> admin = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-javaagent:" + System.getProperty("tcpsight.lab.agent.jar") + "=port=" + agentPort + ",interval=1s",
                // without a log4j2 config the tool's log shows errors only, and the agent's lines are info and warn:
                // an endpoint that did not start says why only here
                "-Dlog4j2.level=INFO",
                "-cp",
                System.getProperty("tcpsight.lab.kafka.lib") + "/*",
                "org.apache.kafka.tools.ClusterTool",
                "cluster-id",
                "--bootstrap-server",
                lab.serverAddress() + ":7200"));
        // The handshake's true bounds, read by ss from outside: it began after the start of the last probe that
        // did not see its SYN-SENT socket, and ended before the end of the first probe after it that did not.
        long[] probeStartNanos = {System.nanoTime()}; // the client has not started: no SYN before this
        long[] synSeenAfterNanos = {0};
        LabProcess client = lab.execInClient("admin-with-agent", admin);
        FindingView finding;
        long establishedBeforeNanos;
        try {
            // The queue is held full until the client's handshake has retransmitted its SYN, however long
            // its JVM takes to start: a fixed hold of 6 s once ran out first on a loaded host (the client
            // created its admin client 6.5 s after it started), so its handshake met an empty queue.
            LabAwait.await("the client's SYN retransmitted against the full queue")
                    .atMost(Duration.ofSeconds(60))
                    .every(Duration.ofMillis(100))
                    .unless(() -> !client.process().isAlive())
                    .explainedBy(() -> "the client side's SYN-SENT sockets:\n" + lab.clientSynSentSockets(7200)
                            + "\nthe client JVM printed:\n" + client.output())
                    .untilTrue(() -> {
                        long started = System.nanoTime();
                        int retransmissions = lab.clientSynRetransmissions(client.pid(), 7200);
                        if (retransmissions < 0 && synSeenAfterNanos[0] == 0) {
                            probeStartNanos[0] = started;
                        } else if (synSeenAfterNanos[0] == 0) {
                            synSeenAfterNanos[0] = probeStartNanos[0];
                        }
                        return retransmissions >= 1;
                    });
            server.sendLine("accept");
            server.awaitLine("^accepting$", Duration.ofSeconds(10));
            LabAwait.await("the client's handshake done once the queue took it")
                    .atMost(Duration.ofSeconds(20))
                    .every(Duration.ofMillis(100))
                    .untilTrue(() -> lab.clientSynRetransmissions(client.pid(), 7200) < 0);
            establishedBeforeNanos = System.nanoTime();
            // the client JVM is still starting while its endpoint refuses; if it never answers, what the JVM
            // printed and where its threads wait (the agent's starter, its endpoint) is the cause
            finding = LabAwait.await("a slow-handshake finding from the client's agent")
                    .atMost(Duration.ofSeconds(30))
                    .every(Duration.ofMillis(500))
                    .explainedBy(() -> "the client JVM printed, and its threads:\n" + client.outputWithThreadDump())
                    .until(() ->
                            FindingView.list(KafkaBroker.httpGet("http://127.0.0.1:" + agentPort + "/findings"))
                                    .stream()
                                    .filter(candidate -> candidate.is("slow-handshake"))
                                    .findFirst()
                                    .orElse(null));
        } finally {
            for (SocketChannel filler : fillers) {
                filler.close();
            }
        }
        // a clock started at the JVM's start or at the admin client's creation, or a figure in the wrong unit,
        // would read longer than the handshake can have lasted
        double mostMillis = (establishedBeforeNanos - synSeenAfterNanos[0]) / 1e6;
        System.out.println(
                "client agent finding: " + finding + "; its handshake can have lasted at most " + mostMillis + " ms");
        assertEquals("client", finding.connection().role());
        assertEquals("bootstrap", finding.connection().nodeId());
        assertEquals(lab.serverAddress() + ":7200", finding.connection().remote(), finding.toString());
        assertTrue(finding.clientIdStartsWith("adminclient-"), finding.toString());
        assertTrue(finding.number("handshake") >= 1000, finding.toString());
        assertTrue(finding.number("handshake") <= mostMillis, finding + "; at most " + mostMillis + " ms");
        assertEquals(
                "socket.listen.backlog.size", finding.remedy().settings().get(0).key());
    }

    @Test
    void lossOnTheLineIsReportedAsRetransmissionsForTheConsumer() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(40)).rateMbit(100).lossPercent(3)));
        // The consumer alternates fetches and polls behind its 64 KiB window: a judged 2 s interval
        // carried 1,078 segments (2026-11-26), against the rule's default floor of 1,000, and an interval
        // below the floor is not judged. A floor of 300 still holds about 9 of 3% lost segments.
        // a ratio of retransmitted segments and names, no rate (the consumer's 64 KiB window holds the flow):
        // the broker compiles with C1 alone
        KafkaBroker broker = KafkaBroker.inLab(lab)
                .shortLivedJvm()
                .agent("interval=2s,rule.min.segments=300")
                .overrides(Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"))
                .start();
        LabTopics.create(broker, "lossy", 1);
        // 6 MB written beside the broker: the consumer had read 2.8 MB when the finding came (2026-11-25). Written
        // from here across the lossy line it took about 20 s, and only the consumer's flow is judged.
        LabTopics.fillBesideBroker(lab, broker, "lossy", 600, 10_000);
        Properties consumerConfig = new Properties();
        consumerConfig.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        consumerConfig.put(ConsumerConfig.CLIENT_ID_CONFIG, "lossy-consumer");
        consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, "lossy");
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of("lossy"));
            FindingView finding = pollFindings(
                    broker,
                    consumer,
                    Duration.ofSeconds(30),
                    f -> f.is("retransmissions")
                            && "lossy-consumer".equals(f.connection().clientId()));
            System.out.println("agent finding: " + finding);
            assertTrue(finding.number("retransmitRatio") >= 0.01, finding.toString());
            assertEquals("broker", finding.connection().role());
        }
    }

    /** Polls /findings until one matches; keeps a consumer busy meanwhile when given. */
    private static KafkaConsumer<byte[], byte[]> consumer(KafkaBroker broker, String clientId, String receiveBuffer) {
        return consumer(broker, clientId, receiveBuffer, Map.of());
    }

    private static KafkaConsumer<byte[], byte[]> consumer(
            KafkaBroker broker, String clientId, String receiveBuffer, Map<String, String> more) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, clientId);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, receiveBuffer);
        config.putAll(more);
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Every tcpsight series the alerting rules read is one the agent serves, under that name. */
    private static void assertRuleMetricsAreScraped(String scrape) throws Exception {
        Matcher names = Pattern.compile("\\b(tcpsight_[a-z_]+)").matcher(Files.readString(ALERT_RULES));
        Set<String> missing = new TreeSet<>();
        while (names.find()) {
            if (!scrape.contains("\n" + names.group(1) + "{") && !scrape.contains("\n" + names.group(1) + " ")) {
                missing.add(names.group(1));
            }
        }
        assertEquals(Set.of(), missing, "series the alerting rules read that the agent does not serve");
    }

    private static FindingView pollFindings(
            KafkaBroker broker,
            KafkaConsumer<byte[], byte[]> consumer,
            Duration timeout,
            Predicate<FindingView> wanted) {
        List<String> seen = new ArrayList<>();
        return LabAwait.await("the finding")
                .atMost(timeout)
                .every(consumer == null ? Duration.ofMillis(200) : Duration.ZERO)
                .explainedBy(() -> "seen " + seen.subList(Math.max(0, seen.size() - 20), seen.size()))
                .until(() -> {
                    if (consumer != null) {
                        consumer.poll(Duration.ofMillis(200));
                    }
                    List<FindingView> findings = FindingView.list(broker.agentGet("/findings"));
                    findings.forEach(finding -> seen.add(finding.brief()));
                    return findings.stream().filter(wanted).findFirst().orElse(null);
                });
    }
}
