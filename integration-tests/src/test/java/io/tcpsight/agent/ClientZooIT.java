package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.agent.ZooScore.Expected;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.Kcat;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.ReporterFindings;
import io.tcpsight.lab.ReportingProducer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Seven different clients at once, 100 ms from one SASL broker with the agent: each truly
 * limited client must be named in its own library's key, no unlimited one may get a warning, and
 * every one shows its authenticated principal. The broker's own buffers autotune, so that each
 * client's settings alone decide whether it is limited.
 */
class ClientZooIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final Duration OBSERVED = Duration.ofSeconds(40);

    /**
     * What each client is and the warn/critical findings (rule and first setting) it must get; a client
     * with none must stay silent (the target makes every answer certain: ZooScore.broker).
     */
    private static final Map<String, Expected> EXPECTED = new LinkedHashMap<>();

    static {
        EXPECTED.put(
                "java-consumer-64k",
                Expected.gets(
                        "Java consumer, receive.buffer.bytes=65536",
                        "receive-window-limited client/java:receive.buffer.bytes=-1"));
        EXPECTED.put("java-consumer-auto", Expected.silent("Java consumer, receive.buffer.bytes=-1"));
        // its own reporter judges the setting on the path; measured, the same limit is send-buffer-limited, which a
        // round may or may not show (listed apart), and its 256 KiB batches keep more than a BDP in flight
        EXPECTED.put(
                "java-producer",
                Expected.gets(
                                "Java producer, Kafka's default send.buffer.bytes (131072), tcpsight reporter",
                                "small-send-buffer client/java:send.buffer.bytes=-1")
                        .tolerating("send-buffer-limited client/java:send.buffer.bytes=-1"));
        EXPECTED.put("java-admin", Expected.silent("Java admin client"));
        EXPECTED.put(
                "kcat-64k",
                Expected.gets(
                        "kcat (librdkafka), socket.receive.buffer.bytes=65536",
                        "receive-window-limited client/librdkafka:socket.receive.buffer.bytes=0"));
        EXPECTED.put("kcat-default", Expected.silent("kcat (librdkafka), defaults"));
        // judged from the sizes each Fetch asked for, on the broker's side; "*": the recommended value follows the RTT
        EXPECTED.put(
                "java-consumer-small-fetch",
                Expected.gets(
                        "Java consumer, fetch.max.bytes and max.partition.fetch.bytes 65536",
                        "fetch-size-below-bdp client/java:fetch.max.bytes=*"));
        EXPECTED.put(
                "kcat-small-fetch",
                Expected.gets(
                        "kcat (librdkafka), fetch.max.bytes and max.partition.fetch.bytes 65536",
                        "fetch-size-below-bdp client/librdkafka:fetch.max.bytes=*"));
    }

    @Test
    void eachClientIsJudgedByTheBuffersItsBytesPassAndNamedInItsOwnLibrarysKeys() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder().link(Link.rtt(Duration.ofMillis(100))));
        List<String> users = new ArrayList<>();
        EXPECTED.keySet().forEach(client -> users.add(user(client)));
        KafkaBroker broker = ZooScore.broker(lab, users);
        LabTopics.create(broker, "zoo", 1);
        LabTopics.create(broker, "zoo-in", 1);
        LabTopics.fill(broker, "zoo", 6000, 10_000); // 60 MB: a 64 KiB window at 100 ms drains 0.6 MB/s

        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> javaClients = new ArrayList<>();
        List<LabProcess> processes = new ArrayList<>();
        ZooScore zoo = new ZooScore(EXPECTED, FindingView.Peer::clientId);
        try {
            javaClients.add(consumer(broker, "java-consumer-64k", "65536", stop));
            javaClients.add(consumer(broker, "java-consumer-auto", "-1", stop));
            javaClients.add(adminClient(broker, "java-admin", stop));
            javaClients.add(consumer(
                    broker,
                    "java-consumer-small-fetch",
                    "-1",
                    stop,
                    Map.of(
                            ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
                            "65536",
                            ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                            "65536")));
            javaClients.forEach(Thread::start);
            processes.add(lab.javaInClient(
                    "zoo-producer",
                    ReportingProducer.class,
                    broker.bootstrapServers(),
                    "zoo-in",
                    "java-producer",
                    user("java-producer"),
                    user("java-producer") + "-secret",
                    Long.toString(OBSERVED.toSeconds() + 10)));
            processes.add(kcat(lab, broker, "kcat-64k", "socket.receive.buffer.bytes=65536"));
            processes.add(kcat(lab, broker, "kcat-default"));
            processes.add(kcat(
                    lab,
                    broker,
                    "kcat-small-fetch",
                    "fetch.max.bytes=65536",
                    "max.partition.fetch.bytes=65536",
                    "message.max.bytes=65536"));

            long end = System.nanoTime() + OBSERVED.toNanos();
            while (System.nanoTime() < end) {
                Thread.sleep(1000);
                zoo.observe(broker);
            }
            for (FindingView finding :
                    ReporterFindings.printedIn(processes.get(0).output())) {
                zoo.record(finding);
            }
        } finally {
            stop.set(true);
            for (Thread client : javaClients) {
                client.join(30_000);
            }
            processes.forEach(LabProcess::close);
        }

        String table =
                zoo.score("client zoo at 100 ms, one SASL broker with the agent, " + OBSERVED.toSeconds() + " s");
        assertTrue(zoo.wrong().isEmpty(), "wrong findings: " + zoo.wrong() + "\n" + table);
        for (String client : EXPECTED.keySet()) {
            FindingView.Peer peer = zoo.seenAs(client);
            assertTrue(peer != null, client + " never seen by the agent");
            assertEquals("User:" + user(client), peer.principal(), client + "'s principal");
        }
        // what the agent saw each client ask for on each connection, which decided the buffers judged (a consumer's
        // bootstrap and coordinator connections carry no fetches)
        Map<String, Set<String>> flows = zoo.flows();
        System.out.println("flows by client as the agent saw them: " + flows);
        assertTrue(flows.get("kcat-64k").contains("to_client"), flows.toString());
        assertTrue(flows.get("java-consumer-64k").contains("to_client"), flows.toString());
        assertTrue(flows.get("java-producer").contains("to_broker"), flows.toString());
        assertEquals(Set.of("none"), flows.get("java-admin"), flows.toString());
        assertEquals("librdkafka", zoo.seenAs("kcat-64k").clientLibrary());
        assertTrue(zoo.seenAs("kcat-64k").clientSoftware().startsWith("librdkafka/"));
        assertTrue(zoo.seenAs("java-consumer-64k").clientSoftware().startsWith("apache-kafka-java/"));
    }

    /** The SASL user of a client: its id without dashes, so that every client authenticates as itself. */
    private static String user(String client) {
        return client.replace("-", "");
    }

    /** A consumer of "zoo" from its start, polling until stopped. */
    private static Thread consumer(KafkaBroker broker, String clientId, String receiveBuffer, AtomicBoolean stop) {
        return consumer(broker, clientId, receiveBuffer, stop, Map.of());
    }

    private static Thread consumer(
            KafkaBroker broker, String clientId, String receiveBuffer, AtomicBoolean stop, Map<String, String> more) {
        Map<String, Object> config = new HashMap<>(KafkaBroker.saslClient(user(clientId), user(clientId) + "-secret"));
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, clientId);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, receiveBuffer);
        config.putAll(more);
        return new Thread(
                () -> {
                    try (KafkaConsumer<byte[], byte[]> consumer =
                            new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                        consumer.subscribe(List.of("zoo"));
                        while (!stop.get()) {
                            consumer.poll(Duration.ofMillis(200));
                        }
                    }
                },
                clientId);
    }

    /** An admin client asking for the cluster and the topics every half second until stopped. */
    private static Thread adminClient(KafkaBroker broker, String clientId, AtomicBoolean stop) {
        Map<String, Object> config = new HashMap<>(KafkaBroker.saslClient(user(clientId), user(clientId) + "-secret"));
        config.put("bootstrap.servers", broker.bootstrapServers());
        config.put("client.id", clientId);
        return new Thread(
                () -> {
                    try (Admin client = Admin.create(config)) {
                        while (!stop.get()) {
                            client.listTopics().names().get(30, TimeUnit.SECONDS);
                            client.describeCluster().nodes().get(30, TimeUnit.SECONDS);
                            Thread.sleep(500);
                        }
                    } catch (Exception stopped) {
                        if (!stop.get()) {
                            throw new IllegalStateException(stopped);
                        }
                    }
                },
                clientId);
    }

    private static LabProcess kcat(KernelLab lab, KafkaBroker broker, String clientId, String... settings)
            throws Exception {
        List<String> all = new ArrayList<>(List.of(
                "client.id=" + clientId,
                "security.protocol=SASL_PLAINTEXT",
                "sasl.mechanisms=PLAIN",
                "sasl.username=" + user(clientId),
                "sasl.password=" + user(clientId) + "-secret"));
        all.addAll(List.of(settings));
        return Kcat.readerFromStart(lab, clientId, broker.bootstrapServers(), "zoo", all.toArray(new String[0]));
    }
}
