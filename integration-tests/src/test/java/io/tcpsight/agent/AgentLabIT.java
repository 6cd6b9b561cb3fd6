package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabPeer;
import io.tcpsight.lab.Link;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The agent in a broker across the kernel delay line: it names the client whose TCP is the problem. */
class AgentLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aConsumerWithA64KibBuffer100MsAwayIsReportedByClientIdAsReceiveWindowLimited() throws Exception {
        KernelLab lab = LAB.start(
                KernelLab.builder().link(Link.rtt(Duration.ofMillis(100)).rateMbit(200)));
        // The broker's own buffers autotune, so that only the consumer's window can be the limit.
        KafkaBroker broker = KafkaBroker.inLab(lab)
                .agent("interval=2s")
                .overrides(Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"))
                .start();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("far", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Properties producerConfig = new Properties();
        producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        producerConfig.put(ProducerConfig.SEND_BUFFER_CONFIG, "-1");
        producerConfig.put(ProducerConfig.BATCH_SIZE_CONFIG, "1000000");
        producerConfig.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] value = new byte[10_000];
            new Random(7).nextBytes(value);
            for (int i = 0; i < 3000; i++) {
                producer.send(new ProducerRecord<>("far", value));
            }
        }
        Properties consumerConfig = new Properties();
        consumerConfig.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        consumerConfig.put(ConsumerConfig.CLIENT_ID_CONFIG, "far-consumer");
        consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, "far");
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerConfig.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, "65536");
        JsonNode finding;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of("far"));
            finding = pollFindings(
                    broker,
                    consumer,
                    Duration.ofSeconds(25),
                    f -> f.path("rule").asText().equals("receive-window-limited")
                            && "far-consumer"
                                    .equals(f.path("connection")
                                            .path("clientId")
                                            .asText()));
        }
        System.out.println("agent finding: " + finding);
        assertEquals("broker", finding.path("connection").path("role").asText());
        assertEquals("PLAINTEXT", finding.path("connection").path("listener").asText());
        assertEquals(100, finding.path("evidence").path("rtt").path("value").asDouble(), 3);
        assertTrue(finding.path("evidence").path("peerWindow").path("value").asLong() <= 131_072, finding.toString());
        JsonNode setting = finding.path("remedy").path("settings").get(0);
        assertEquals("receive.buffer.bytes", setting.path("key").asText());
        assertEquals("-1", setting.path("value").asText());
    }

    @Test
    void aSynBurstWithoutClientTimestampsShowsUnscaledConnectionsAndTheListenersSynCookies() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.oneWay(Duration.ofMillis(25)).rateMbit(200))
                .serverSysctl("net.ipv4.tcp_syncookies", 1)
                .serverSysctl("net.core.somaxconn", 4)
                .clientSysctl("net.ipv4.tcp_timestamps", 0));
        KafkaBroker broker = KafkaBroker.inLab(lab)
                .agent("interval=1s")
                .overrides(Map.of("socket.listen.backlog.size", "1"))
                .start();
        lab.javaInClient("burst", LabPeer.class, "burst", lab.serverAddress(), "9092", "64", "15000")
                .awaitLine("^connected \\d+ of \\d+$", Duration.ofSeconds(60));
        JsonNode unscaled = pollFindings(broker, null, Duration.ofSeconds(20), f -> f.path("rule")
                .asText()
                .equals("no-window-scaling"));
        // A finding that lived for one interval only would be gone by now (three 1 s intervals later).
        Thread.sleep(3000);
        // The counters are per network namespace, so each of the broker's listeners carries the finding.
        JsonNode cookies = pollFindings(
                broker,
                null,
                Duration.ofSeconds(20),
                f -> f.path("rule").asText().equals("syn-cookies")
                        && f.path("connection").path("listener").asText().equals("PLAINTEXT"));
        System.out.println("agent findings: " + unscaled + "\n" + cookies);
        assertEquals("broker", unscaled.path("connection").path("role").asText());
        assertTrue(unscaled.path("connection").path("remote").asText().startsWith(lab.clientAddress() + ":"));
        assertTrue(
                unscaled.path("evidence").path("rtt").isMissingNode()
                        || unscaled.path("evidence").path("rtt").path("value").asDouble() < 1000,
                "no RTT sample yet is no RTT, not 71 minutes: " + unscaled);
        assertTrue(cookies.path("evidence").path("SyncookiesSent").path("value").asLong() > 0);
        assertEquals(
                1,
                cookies.path("evidence").path("effectiveBacklog").path("value").asLong());
    }

    @Test
    void anAgentInAClientReportsAHandshakeThatWaitedForSynRetransmissions() throws Exception {
        // Without cookies a full accept queue drops SYNs; the client retransmits after 1 s, 3 s, 7 s.
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.oneWay(Duration.ofMillis(5)))
                .serverSysctl("net.ipv4.tcp_syncookies", 0)
                .serverSysctl("net.core.somaxconn", 1));
        lab.javaInServer("full-queue", LabPeer.class, "syn-server", lab.serverAddress(), "7200", "1", "6000", "20000")
                .awaitLine("^listening$", Duration.ofSeconds(20));
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
                "-cp",
                System.getProperty("tcpsight.lab.kafka.lib") + "/*",
                "org.apache.kafka.tools.ClusterTool",
                "cluster-id",
                "--bootstrap-server",
                lab.serverAddress() + ":7200"));
        lab.execInClient("admin-with-agent", admin);
        JsonNode finding = null;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (finding == null && System.nanoTime() < deadline) {
            Thread.sleep(500);
            try {
                for (JsonNode candidate :
                        JSON.readTree(KafkaBroker.httpGet("http://127.0.0.1:" + agentPort + "/findings"))) {
                    if (candidate.path("rule").asText().equals("slow-handshake")) {
                        finding = candidate;
                    }
                }
            } catch (IOException notUpYet) {
                // the client JVM is still starting
            }
        }
        for (SocketChannel filler : fillers) {
            filler.close();
        }
        System.out.println("client agent finding: " + finding);
        assertTrue(finding != null, "no slow-handshake finding from the client's agent");
        assertEquals("client", finding.path("connection").path("role").asText());
        assertEquals("bootstrap", finding.path("connection").path("nodeId").asText());
        assertTrue(finding.path("connection").path("clientId").asText().startsWith("adminclient-"), finding.toString());
        assertTrue(finding.path("evidence").path("handshake").path("value").asLong() >= 1000, finding.toString());
        assertEquals(
                "socket.listen.backlog.size",
                finding.path("remedy").path("settings").get(0).path("key").asText());
    }

    @Test
    void lossOnTheLineIsReportedAsRetransmissionsForTheConsumer() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(40)).rateMbit(100).lossPercent(3)));
        KafkaBroker broker = KafkaBroker.inLab(lab)
                .agent("interval=2s")
                .overrides(Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"))
                .start();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("lossy", 1, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        Properties producerConfig = new Properties();
        producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        producerConfig.put(ProducerConfig.SEND_BUFFER_CONFIG, "-1");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] value = new byte[10_000];
            new Random(3).nextBytes(value);
            for (int i = 0; i < 2000; i++) {
                producer.send(new ProducerRecord<>("lossy", value));
            }
        }
        Properties consumerConfig = new Properties();
        consumerConfig.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        consumerConfig.put(ConsumerConfig.CLIENT_ID_CONFIG, "lossy-consumer");
        consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, "lossy");
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of("lossy"));
            JsonNode finding = pollFindings(
                    broker,
                    consumer,
                    Duration.ofSeconds(30),
                    f -> f.path("rule").asText().equals("retransmissions")
                            && "lossy-consumer"
                                    .equals(f.path("connection")
                                            .path("clientId")
                                            .asText()));
            System.out.println("agent finding: " + finding);
            assertTrue(
                    finding.path("evidence")
                                    .path("retransmitRatio")
                                    .path("value")
                                    .asDouble()
                            >= 0.01,
                    finding.toString());
            assertEquals("broker", finding.path("connection").path("role").asText());
        }
    }

    /** Polls /findings until one matches; keeps a consumer busy meanwhile when given. */
    private static JsonNode pollFindings(
            KafkaBroker broker, KafkaConsumer<byte[], byte[]> consumer, Duration timeout, Predicate<JsonNode> wanted)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> seen = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            if (consumer != null) {
                consumer.poll(Duration.ofMillis(200));
            } else {
                Thread.sleep(200);
            }
            for (JsonNode finding : JSON.readTree(broker.agentGet("/findings"))) {
                if (wanted.test(finding)) {
                    return finding;
                }
                seen.add(finding.path("rule").asText() + ":"
                        + finding.path("connection").path("clientId").asText());
            }
        }
        throw new AssertionError("no such finding within " + timeout + "; seen "
                + seen.subList(Math.max(0, seen.size() - 20), seen.size()) + "\nconnections: "
                + broker.agentGet("/connections?top=10"));
    }
}
