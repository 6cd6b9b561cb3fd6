package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.tools.attach.VirtualMachine;
import io.tcpsight.lab.ClientTelemetryLab;
import io.tcpsight.lab.ConnectionView;
import io.tcpsight.lab.DashboardQueries;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.JvmWarnings;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.Kcat;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabDoctor;
import io.tcpsight.lab.LabHeap;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.LabPeer;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabRounds;
import io.tcpsight.lab.LabTls;
import io.tcpsight.lab.PrometheusText;
import io.tcpsight.lab.Together;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The agent in real broker JVMs on loopback: attribution, bad arguments, bounded memory. */
// runs nothing across the delay line: may run beside the lab classes (HostCpu)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class BrokerAgentIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest(name = "Kafka {0}")
    @EnumSource(names = {"V3_9", "V4_3"}) // the other releases: VersionMatrixLabIT
    void everyConnectionIsAttributedToItsClientIdAndListener(KafkaBroker.Version version) throws Exception {
        try (KafkaBroker broker = KafkaBroker.onLoopback()
                .shortLivedJvm()
                .version(version)
                // one key the file sets, so that what /connections shows is read from it
                .overrides(Map.of("socket.listen.backlog.size", "64"))
                .agent("interval=1s")
                .start()) {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
            }
            Properties producerConfig = new Properties();
            producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            producerConfig.put(ProducerConfig.CLIENT_ID_CONFIG, "orders-producer");
            Properties consumerConfig = new Properties();
            consumerConfig.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            consumerConfig.put(ConsumerConfig.CLIENT_ID_CONFIG, "orders-consumer");
            consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, "orders");
            consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            try (KafkaProducer<String, String> producer =
                            new KafkaProducer<>(producerConfig, new StringSerializer(), new StringSerializer());
                    KafkaConsumer<String, String> consumer =
                            new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
                for (int i = 0; i < 100; i++) {
                    producer.send(new ProducerRecord<>("orders", "order-" + i));
                }
                producer.flush();
                consumer.subscribe(List.of("orders"));
                AtomicInteger read = new AtomicInteger();
                LabAwait.await("the consumer reads the 100 records")
                        .atMost(Duration.ofSeconds(30))
                        .every(Duration.ZERO)
                        .untilTrue(() -> read.addAndGet(
                                        consumer.poll(Duration.ofMillis(200)).count())
                                >= 100);
                assertEquals(100, read.get());

                List<String> seen = LabAwait.await("a sampling round that saw the producer and the consumer")
                        .atMost(Duration.ofSeconds(15))
                        .until(() -> {
                            List<String> lines = new ArrayList<>();
                            for (ConnectionView connection :
                                    ConnectionView.list(broker.agentGet("/connections?top=1000"))) {
                                lines.add(connection.role() + " " + connection.clientId() + " "
                                        + connection.connection().listener());
                            }
                            return lines.contains("broker orders-producer PLAINTEXT")
                                            && lines.contains("broker orders-consumer PLAINTEXT")
                                    ? lines
                                    : null;
                        });
                assertTrue(seen.contains("broker orders-producer PLAINTEXT"), seen.toString());
                assertTrue(seen.contains("broker orders-consumer PLAINTEXT"), seen.toString());
                assertTrue(
                        seen.stream().anyMatch(line -> line.endsWith("CONTROLLER")),
                        "the broker's own controller channel: " + seen);
                assertTrue(
                        seen.stream().noneMatch(line -> line.startsWith("broker  ")),
                        "no unattributed broker-side connection: " + seen);
                // every connection to a listener shows the listener's socket settings, read from the broker's
                // server.properties, which the lab leaves at Kafka's defaults; no client connection of the broker
                // (its controller channel; a single broker has no replica fetcher) shows any
                int listenerConnections = 0;
                for (ConnectionView connection : ConnectionView.list(broker.agentGet("/connections?top=1000"))) {
                    JsonNode settings = connection.brokerSettings();
                    if (connection.role().equals("broker")) {
                        listenerConnections++;
                        assertEquals(
                                64,
                                settings.path("socket.listen.backlog.size")
                                        .path("value")
                                        .asInt(),
                                connection.toString());
                        assertFalse(
                                settings.path("socket.listen.backlog.size")
                                        .path("default")
                                        .asBoolean(true),
                                connection.toString());
                        assertTrue(
                                settings.path("source").asText().endsWith("server.properties"), connection.toString());
                        assertEquals(
                                102_400,
                                settings.path("socket.send.buffer.bytes")
                                        .path("value")
                                        .asInt(),
                                connection.toString());
                        assertTrue(
                                settings.path("socket.receive.buffer.bytes")
                                        .path("default")
                                        .asBoolean(),
                                connection.toString());
                    } else {
                        assertEquals(null, settings, connection.toString());
                    }
                }
                assertTrue(listenerConnections >= 2, "the producer's and the consumer's connections were listed");

                // The table of the worst connections names clients; a round after /connections named them.
                String metrics = LabAwait.await("the consumer in the worst-connections table")
                        .atMost(Duration.ofSeconds(15))
                        .until(() -> {
                            String scrape = broker.agentGet("/metrics");
                            return scrape.contains("client_id=\"orders-consumer\"") ? scrape : null;
                        });
                assertTrue(
                        metrics.lines()
                                .filter(line -> line.contains("client_id="))
                                .allMatch(line -> line.startsWith("tcpsight_top_connection_")),
                        "client.id only in the bounded table:\n" + metrics);
                assertTrue(metrics.contains("tcpsight_connections "), metrics);
                DashboardQueries.assertAllExist(metrics, "broker-agent.json", "kafka-clients.json");
                for (FindingView finding : FindingView.list(broker.agentGet("/findings"))) {
                    // Listener findings read the namespace's counters, which other processes on this host also move.
                    boolean listenerRule = finding.rule().matches("listen-backlog-overflow|syn-cookies");
                    assertTrue(
                            listenerRule || finding.severity().equals("info"),
                            "a loopback connection is healthy: " + finding);
                }
            }
        }
    }

    /** Both versions: Kafka 3.9 ends a broker-side connection id with "-index", 4.x with "-processor-index". */
    @ParameterizedTest(name = "Kafka {0}")
    @EnumSource(names = {"V3_9", "V4_3"})
    void theAgentAttachesToABrokerThatIsAlreadyRunning(KafkaBroker.Version version) throws Exception {
        try (KafkaBroker broker = KafkaBroker.onLoopback()
                        .shortLivedJvm()
                        .withoutSharedClasses() // the attach rewrites archived classes in place (SharedClasses)
                        .version(version)
                        .start();
                Admin early = Admin.create(
                        Map.of("bootstrap.servers", broker.bootstrapServers(), "client.id", "early-admin"))) {
            early.describeCluster().nodes().get(30, TimeUnit.SECONDS); // connected before the agent exists
            int port = KafkaBroker.freePort();
            VirtualMachine vm =
                    VirtualMachine.attach(Long.toString(broker.process().pid()));
            try {
                vm.loadAgent(System.getProperty("tcpsight.lab.agent.jar"), "port=" + port + ",interval=1s");
            } finally {
                vm.detach();
            }
            // Kafka's classes were loaded before the agent: late-admin proves they were retransformed, early-admin
            // (no hook saw its connection) that open connections are adopted and attributed at their next request.
            try (Admin admin =
                    Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers(), "client.id", "late-admin"))) {
                admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
                List<String> seen = new ArrayList<>();
                // the endpoint starts on the agent's own thread: LabAwait retries while it refuses
                LabAwait.await("the late and the early admin attributed")
                        .atMost(Duration.ofSeconds(15))
                        .every(Duration.ofMillis(500))
                        .explainedBy(seen::toString)
                        .untilTrue(() -> {
                            early.describeCluster().nodes().get(30, TimeUnit.SECONDS);
                            seen.clear();
                            for (ConnectionView connection : ConnectionView.list(
                                    KafkaBroker.httpGet("http://127.0.0.1:" + port + "/connections?top=100"))) {
                                seen.add(connection.role() + " " + connection.clientId());
                            }
                            return seen.contains("broker late-admin") && seen.contains("broker early-admin");
                        });
            }
            // the agent put its hooks in the boot loader without growing the boot class path, which turns sharing off
            assertEquals(
                    List.of(),
                    JvmWarnings.ofHotSpot(broker.process().output()),
                    broker.process().output());
        }
    }

    /**
     * Attach as an operator does on a broker host that has only the agent's jar and a JDK: {@code
     * java -jar <agent jar> attach PID key=value,...}, with nothing but that jar on the class path,
     * loads the agent with its arguments whole and prints its endpoint; a second attach, through the
     * doctor's alias {@code tcpsight attach}, is refused and changes nothing; and jcmd's form, with the
     * arguments quoted as docs/broker-agent.md says, survives jcmd's parser.
     */
    @Test
    void theAgentJarAloneAndJcmdLoadTheAgentWithItsArgumentsAndASecondAttachIsRefused() throws Exception {
        // jcmd's argument passing needs no broker: any JVM shows it, and a second broker would cost its start
        LabProcess jcmdTarget = peerJvm("jcmd-target", Path.of(System.getProperty("java.home")));
        try (KafkaBroker broker = KafkaBroker.onLoopback()
                        .shortLivedJvm()
                        .withoutSharedClasses() // the attach rewrites archived classes in place (SharedClasses)
                        .start();
                LabProcess second = jcmdTarget) {
            second.awaitLine("^listening$", Duration.ofSeconds(20));
            int port = KafkaBroker.freePort();
            String pid = Long.toString(broker.process().pid());
            String agentJar = System.getProperty("tcpsight.lab.agent.jar");
            LabDoctor.Run attached = agentJar(
                    Path.of(System.getProperty("java.home")),
                    List.of(),
                    "attach",
                    pid,
                    "port=" + port + ",interval=1s");
            System.out.println("java -jar <agent jar> attach: " + attached);
            assertEquals(0, attached.exit(), attached.toString());
            assertTrue(
                    attached.out()
                            .contains("tcpsight agent started http://127.0.0.1:" + port + "/metrics in pid " + pid),
                    attached.toString());
            assertTrue(
                    KafkaBroker.httpGet("http://127.0.0.1:" + port + "/metrics").contains("tcpsight_connections"));
            LabDoctor.Run again = LabDoctor.command(
                    Duration.ofSeconds(60), "attach", pid, "--agent-jar", agentJar, "port=" + (port + 1));
            System.out.println("tcpsight attach, again: " + again);
            assertEquals(3, again.exit(), again.toString());
            assertTrue(again.err().contains("the agent already runs in pid " + pid), again.toString());
            assertTrue(again.err().contains("nothing was changed"), again.toString());

            int jcmdPort = KafkaBroker.freePort();
            Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
            Process loading = new ProcessBuilder(
                            jcmd.toString(),
                            Long.toString(second.pid()),
                            "JVMTI.agent_load",
                            agentJar,
                            "\"port=" + jcmdPort + ",interval=1s\"")
                    .redirectErrorStream(true)
                    .start();
            String jcmdOutput = new String(loading.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(loading.waitFor(60, TimeUnit.SECONDS), jcmdOutput);
            assertEquals(0, loading.exitValue(), jcmdOutput);
            String metrics = LabAwait.await("the endpoint of the agent jcmd loaded")
                    .atMost(Duration.ofSeconds(20))
                    .explainedBy(second::output)
                    .until(() -> KafkaBroker.httpGet("http://127.0.0.1:" + jcmdPort + "/metrics"));
            assertTrue(metrics.contains("tcpsight_connections"), metrics);
        }
    }

    /**
     * An attach that cannot happen says why in one line, in the cases operators meet: no such
     * process, a process that is not a JVM (left running: the Attach API's signal would end it), bad
     * arguments (judged on Java 11, the agent's oldest, before the JVM is touched), a Java without the
     * Attach API, a JVM that refuses every attach (-XX:+DisableAttachMechanism, through the doctor's
     * alias), and one that refuses agents loaded at run time (JEP 451's -XX:-EnableDynamicAgentLoading,
     * Java 21 and later: Temurin 25 here).
     */
    @Test
    void anAttachThatCannotHappenSaysWhy() throws Exception {
        String agentJar = System.getProperty("tcpsight.lab.agent.jar");
        Path javaHome = Path.of(System.getProperty("java.home"));
        LabDoctor.Run gone = agentJar(javaHome, List.of(), "attach", "999999999");
        System.out.println("attach to no process: " + gone);
        assertEquals(3, gone.exit(), gone.toString());
        assertEquals(
                "tcpsight attach: could not attach to pid 999999999: no such process\n", gone.err(), gone.toString());
        // env unblocks SIGQUIT, which a child of this JVM inherits blocked: the Attach API's signal would end it
        Process sleep = new ProcessBuilder("env", "--default-signal=QUIT", "sleep", "120").start();
        try {
            LabDoctor.Run notJvm = agentJar(javaHome, List.of(), "attach", Long.toString(sleep.pid()), "port=0");
            System.out.println("attach to sleep: " + notJvm);
            assertEquals(3, notJvm.exit(), notJvm.toString());
            assertTrue(notJvm.err().contains("it is not a JVM"), notJvm.toString());
            assertTrue(sleep.isAlive(), "a process that is not a JVM is left running");
        } finally {
            sleep.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        Path java25 = LabPrerequisites.requireJavaRuntime(25);
        Path java11 = LabPrerequisites.requireJavaRuntime(11);
        try (LabProcess closed = peerJvm("attach-disabled", javaHome, "-XX:+DisableAttachMechanism");
                LabProcess static25 = peerJvm("dynamic-agents-off", java25, "-XX:-EnableDynamicAgentLoading")) {
            closed.awaitLine("^listening$", Duration.ofSeconds(20));
            static25.awaitLine("^listening$", Duration.ofSeconds(20));
            String closedPid = Long.toString(closed.pid());
            LabDoctor.Run badArguments = agentJar(java11, List.of(), "attach", closedPid, "port=abc,interval=10s");
            System.out.println("attach with port=abc, on Java 11: " + badArguments);
            assertEquals(2, badArguments.exit(), badArguments.toString());
            assertEquals(
                    "tcpsight attach: port=abc is not valid: a TCP port from 0 to 65535 (0 turns the HTTP endpoint off);"
                            + " nothing was loaded into pid " + closedPid + "\n",
                    badArguments.err(),
                    badArguments.toString());
            LabDoctor.Run noAttachApi = agentJar(javaHome, List.of("--limit-modules", "java.se"), "attach", closedPid);
            System.out.println("attach from a Java without jdk.attach: " + noAttachApi);
            assertEquals(3, noAttachApi.exit(), noAttachApi.toString());
            assertTrue(
                    noAttachApi.err().startsWith("tcpsight attach: this Java has no Attach API"),
                    noAttachApi.toString());
            assertEquals(1, noAttachApi.err().lines().count(), noAttachApi.toString());

            LabDoctor.Run refused =
                    LabDoctor.command(Duration.ofSeconds(60), "attach", closedPid, "--agent-jar", agentJar);
            System.out.println("attach to a JVM with -XX:+DisableAttachMechanism: " + refused);
            assertEquals(3, refused.exit(), refused.toString());
            // the specific sentence, not the generic hint that also names the option among other causes
            assertTrue(
                    refused.err().contains("the JVM runs with -XX:+DisableAttachMechanism, which refuses every attach"),
                    refused.toString());
            assertTrue(!refused.err().contains("the attach socket is in the JVM's /tmp"), refused.toString());
            LabDoctor.Run dynamicOff = agentJar(javaHome, List.of(), "attach", Long.toString(static25.pid()));
            System.out.println("attach to a Java 25 JVM with -XX:-EnableDynamicAgentLoading: " + dynamicOff);
            assertEquals(3, dynamicOff.exit(), dynamicOff.toString());
            assertTrue(dynamicOff.err().contains("JEP 451"), dynamicOff.toString());
            assertTrue(!static25.output().contains("tcpsight agent started"), static25.output());
            assertTrue(!closed.output().contains("tcpsight agent"), closed.output());
        }
    }

    /**
     * {@code java -jar <agent jar> ARGS} on this Java with these options: the agent's jar alone on the
     * class path, as on a broker host that has nothing else of tcpsight.
     */
    private static LabDoctor.Run agentJar(Path javaHome, List<String> options, String... args) throws Exception {
        List<String> command =
                new ArrayList<>(List.of(javaHome.resolve("bin").resolve("java").toString()));
        command.addAll(options);
        command.addAll(List.of("-jar", LabPaths.agentJar().toString()));
        command.addAll(List.of(args));
        return LabDoctor.process(String.join(" ", command), command, Duration.ofSeconds(60), environment -> {
            environment.remove("CLASSPATH");
            environment.remove("JAVA_TOOL_OPTIONS");
        });
    }

    /** A small JVM that only listens (LabPeer's echo), on this runtime with these options. */
    private static LabProcess peerJvm(String name, Path javaHome, String... options) throws Exception {
        List<String> command =
                new ArrayList<>(List.of(javaHome.resolve("bin").resolve("java").toString()));
        command.addAll(List.of(options));
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                LabPeer.class.getName(),
                "echo",
                "127.0.0.1",
                Integer.toString(KafkaBroker.freePort())));
        return LabProcess.start(name, command);
    }

    /**
     * SASL/PLAIN: the principal is the authenticated one, not the ANONYMOUS of the requests before
     * authentication; the client software is what each client announced (KIP-511), for Kafka's
     * Java client and for librdkafka (kcat).
     */
    @Test
    void anAuthenticatedClientIsNamedByItsPrincipalAndSoftware() throws Exception {
        LabPrerequisites.requireCommand(
                "kcat", "kcat, a librdkafka client (apt-get install kcat)"); // before the broker
        try (KafkaBroker broker = KafkaBroker.onLoopback()
                .shortLivedJvm()
                .saslPlain("admin", "admin-secret", Map.of("alice", "alice-secret", "carol", "carol-secret"))
                .overrides(Map.of("connections.max.reauth.ms", "3000")) // KIP-368: sessions re-authenticate
                .agent("interval=1s")
                .start()) {
            Map<String, Object> adminConfig = new HashMap<>(broker.adminSecurity());
            adminConfig.put("bootstrap.servers", broker.bootstrapServers());
            try (Admin admin = Admin.create(adminConfig)) {
                admin.createTopics(List.of(new NewTopic("secured", 1, (short) 1)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
            }
            Properties consumerConfig = new Properties();
            consumerConfig.putAll(KafkaBroker.saslClient("alice", "alice-secret"));
            consumerConfig.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            consumerConfig.put(ConsumerConfig.CLIENT_ID_CONFIG, "alice-consumer");
            consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, "alice");
            try (KafkaConsumer<String, String> consumer =
                            new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer());
                    LabProcess kcat = Kcat.consumer(
                            "kcat-sasl-" + ProcessHandle.current().pid(),
                            broker.bootstrapServers(),
                            "secured",
                            "client.id=carol-kcat",
                            "security.protocol=SASL_PLAINTEXT",
                            "sasl.mechanisms=PLAIN",
                            "sasl.username=carol",
                            "sasl.password=carol-secret")) {
                consumer.subscribe(List.of("secured"));
                Map<String, ConnectionView> named = LabAwait.await("both authenticated clients named by the agent")
                        .atMost(Duration.ofSeconds(30))
                        .unless(() -> !kcat.process().isAlive())
                        .explainedBy(kcat::output)
                        .until(() -> {
                            consumer.poll(Duration.ofMillis(100));
                            Map<String, ConnectionView> byClient = new HashMap<>();
                            for (ConnectionView connection :
                                    ConnectionView.list(broker.agentGet("/connections?top=100"))) {
                                if ("broker".equals(connection.role()) && connection.clientId() != null) {
                                    byClient.put(connection.clientId(), connection);
                                }
                            }
                            return byClient.containsKey("alice-consumer") && byClient.containsKey("carol-kcat")
                                    ? byClient
                                    : null;
                        });
                FindingView.Peer alice = named.get("alice-consumer").connection();
                FindingView.Peer carol = named.get("carol-kcat").connection();
                System.out.println("SASL clients as the agent names them: " + alice + ", " + carol);
                assertEquals("User:alice", alice.principal());
                assertTrue(alice.clientSoftware().startsWith("apache-kafka-java/"), alice.clientSoftware());
                assertEquals("User:carol", carol.principal());
                assertTrue(carol.clientSoftware().startsWith("librdkafka/"), carol.clientSoftware());

                // after the Java client re-authenticated its connections (KIP-368), it is still alice, on the same
                // sockets: every one of hers the agent listed (the client's end, as the broker sees it) that is still
                // open. A client re-authenticates a connection only when it next sends on it, and the broker closes one
                // whose session expired unused, so an idle socket of hers (the bootstrap connection) may close within
                // the 3 s session; the ones she fetches and commits on stay
                Set<String> aliceSockets = new TreeSet<>();
                for (ConnectionView connection : ConnectionView.list(broker.agentGet("/connections?top=100"))) {
                    if ("alice-consumer".equals(connection.clientId())) {
                        aliceSockets.add(connection.connection().remote());
                    }
                }
                LabAwait.await("the Java consumer re-authenticated")
                        .atMost(Duration.ofSeconds(30))
                        .untilTrue(() -> {
                            consumer.poll(Duration.ofMillis(100));
                            return consumer.metrics().entrySet().stream()
                                    .filter(metric ->
                                            metric.getKey().name().equals("successful-reauthentication-total"))
                                    .anyMatch(metric ->
                                            ((Number) metric.getValue().metricValue()).doubleValue() >= 2);
                        });
                consumer.poll(Duration.ofMillis(100));
                List<FindingView.Peer> again = ConnectionView.list(broker.agentGet("/connections?top=100")).stream()
                        .map(ConnectionView::connection)
                        .filter(connection -> aliceSockets.contains(connection.remote()))
                        .collect(Collectors.toList());
                System.out.println("after re-authentication, of alice's sockets " + aliceSockets + ": " + again);
                assertFalse(again.isEmpty(), "every socket of alice's is gone: " + aliceSockets);
                for (FindingView.Peer socket : again) {
                    assertEquals("User:alice", socket.principal(), socket.toString());
                    assertEquals("alice-consumer", socket.clientId(), socket.toString());
                }
            }
        }
    }

    /**
     * Mutual TLS: the principal is the one the client's certificate gives ("User:CN=dave"), which
     * the broker knows only once the handshake is done, not the ANONYMOUS of before.
     */
    @Test
    void aMutualTlsClientIsNamedByItsCertificate() throws Exception {
        LabTls tls = LabTls.create("mtls", "dave");
        try (KafkaBroker broker = KafkaBroker.onLoopback()
                .shortLivedJvm()
                .mutualTls(tls)
                .agent("interval=1s")
                .start()) {
            Map<String, Object> config = new HashMap<>(tls.client("dave"));
            config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            config.put(AdminClientConfig.CLIENT_ID_CONFIG, "dave-admin");
            try (Admin admin = Admin.create(config)) {
                ConnectionView dave = LabAwait.await("the TLS client named by the agent")
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> {
                            admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
                            for (ConnectionView connection :
                                    ConnectionView.list(broker.agentGet("/connections?top=100"))) {
                                if ("broker".equals(connection.role()) && "dave-admin".equals(connection.clientId())) {
                                    return connection;
                                }
                            }
                            return null;
                        });
                System.out.println("TLS client as the agent names it: " + dave.connection());
                assertEquals("User:CN=dave", dave.connection().principal());
                assertTrue(
                        dave.connection().clientSoftware().startsWith("apache-kafka-java/"),
                        dave.connection().clientSoftware());
            }
        }
    }

    /**
     * KIP-714 with a real broker and real Java clients: the broker lists tcpsight's receiver for its release
     * (beside Kafka's JMX reporter, as the docs write it), a narrow subscription asks producers and consumers for
     * their metrics every second, and each push lands on the connection it came on. Two producers and a
     * consumer from one host: every connection that shows a client instance id shows the one its own
     * client reports (clientInstanceId), none another's.
     */
    @ParameterizedTest(name = "Kafka {0}")
    @EnumSource(names = {"V3_9", "V4_3"})
    void eachClientsTelemetryPushLandsOnTheConnectionItCameOn(KafkaBroker.Version version) throws Exception {
        try (KafkaBroker broker = KafkaBroker.onLoopback()
                        .shortLivedJvm()
                        .version(version)
                        .overrides(ClientTelemetryLab.brokerOverrides(version))
                        .agent("interval=1s")
                        .start();
                Admin admin = Admin.create(
                        Map.of("bootstrap.servers", broker.bootstrapServers(), "client.id", "telemetry-admin"))) {
            admin.createTopics(List.of(new NewTopic("pushed", 1, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            ClientTelemetryLab.subscribe(broker.bootstrapServers(), Map.of(), Duration.ofSeconds(1));
            Map<String, String> instanceByClientId = new HashMap<>();
            List<AutoCloseable> clients = new ArrayList<>();
            try {
                for (String clientId : List.of("telemetry-a", "telemetry-b")) {
                    Properties config = new Properties();
                    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
                    config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
                    KafkaProducer<String, String> producer =
                            new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
                    clients.add(producer);
                    producer.send(new ProducerRecord<>("pushed", clientId)).get(30, TimeUnit.SECONDS);
                    instanceByClientId.put(
                            clientId,
                            producer.clientInstanceId(Duration.ofSeconds(30)).toString());
                }
                Properties config = new Properties();
                config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
                config.put(ConsumerConfig.CLIENT_ID_CONFIG, "telemetry-c");
                config.put(ConsumerConfig.GROUP_ID_CONFIG, "pushed");
                config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                KafkaConsumer<String, String> consumer =
                        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
                clients.add(consumer);
                consumer.subscribe(List.of("pushed"));
                consumer.poll(Duration.ofSeconds(2));
                instanceByClientId.put(
                        "telemetry-c",
                        consumer.clientInstanceId(Duration.ofSeconds(30)).toString());

                Map<String, JsonNode> figuresByClientId = new HashMap<>();
                Map<String, String> shownByClientId = new HashMap<>();
                List<String> wrong = new ArrayList<>();
                LabAwait.await("each client's push on its connection")
                        .atMost(Duration.ofSeconds(30))
                        .explainedBy(() -> "shown " + figuresByClientId + ", expected " + instanceByClientId)
                        .untilTrue(() -> {
                            consumer.poll(Duration.ofMillis(100));
                            for (JsonNode connection : JSON.readTree(broker.agentGet("/connections?top=1000"))) {
                                JsonNode pushed = connection.path("clientTelemetry");
                                String clientId = connection
                                        .path("connection")
                                        .path("clientId")
                                        .asText();
                                if (!pushed.isMissingNode()) {
                                    System.out.println("client telemetry on " + clientId + ": " + pushed);
                                    String shown =
                                            pushed.path("clientInstanceId").asText();
                                    figuresByClientId.put(clientId, pushed);
                                    shownByClientId.put(clientId, shown);
                                    if (!shown.equals(instanceByClientId.get(clientId))) {
                                        wrong.add(clientId + " shows " + shown + ": " + connection);
                                    }
                                }
                            }
                            // a client's first push may come before its first fetch or send, when those figures
                            // have no value yet (NaN, not kept): wait for a push that carries its kind's figures
                            return shownByClientId.keySet().containsAll(instanceByClientId.keySet())
                                    && figuresByClientId.entrySet().stream()
                                            .allMatch(shown -> carriesItsFigures(shown.getKey(), shown.getValue()));
                        });
                System.out.println(
                        "client telemetry: shown " + shownByClientId + ", the clients' own " + instanceByClientId);
                assertEquals(List.of(), wrong, "a push joined to another client's connection");
                assertEquals(instanceByClientId, shownByClientId);
                // each client's own figures, as its kind pushes them: a producer's queue time and its latency to
                // this broker (the per-broker figure, matched by node_id), the consumer's fetch latency, and none of
                // the other kind's
                figuresByClientId.forEach((clientId, figures) ->
                        assertTrue(carriesItsFigures(clientId, figures), clientId + ": " + figures));
                String metrics = broker.agentGet("/metrics");
                String pushes = "tcpsight_client_telemetry_pushes_total";
                assertTrue(PrometheusText.sum(metrics, pushes, Map.of("outcome", "joined")) >= 3, metrics);
                assertEquals(0, PrometheusText.sum(metrics, pushes, Map.of("outcome", "malformed")), metrics);
            } finally {
                for (AutoCloseable client : clients) {
                    client.close();
                }
            }
        }
    }

    /** A producer's push carries its queue time and its latency to this broker; the consumer's its fetch latency. */
    private static boolean carriesItsFigures(String clientId, JsonNode figures) {
        boolean producer = !clientId.equals("telemetry-c");
        return producer
                ? figures.path("recordQueueTimeAvgMs").isNumber()
                        && figures.path("producerRequestLatencyAvgMs").isNumber()
                        && figures.path("fetchLatencyAvgMs").isMissingNode()
                : figures.path("fetchLatencyAvgMs").isNumber()
                        && figures.path("recordQueueTimeAvgMs").isMissingNode();
    }

    @Test
    void congestionControlIsSetOnAcceptedSocketsOnlyWhenAskedFor() throws Exception {
        try (KafkaBroker broker = KafkaBroker.onLoopback()
                .shortLivedJvm()
                .agent("interval=1s,congestion=reno")
                .start()) {
            try (Admin admin =
                    Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers(), "client.id", "cc-probe"))) {
                admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
                List<String> seen = new ArrayList<>();
                LabAwait.await("accepted sockets use reno")
                        .atMost(Duration.ofSeconds(15))
                        .explainedBy(seen::toString)
                        .untilTrue(() -> {
                            seen.clear();
                            for (ConnectionView connection :
                                    ConnectionView.list(broker.agentGet("/connections?top=1000"))) {
                                seen.add(connection.role() + " " + connection.clientId() + " "
                                        + (connection.socket() == null
                                                ? ""
                                                : connection.socket().congestionControl()));
                            }
                            return seen.contains("broker cc-probe reno");
                        });
                assertTrue(
                        seen.stream()
                                .filter(line -> line.startsWith("client "))
                                .noneMatch(line -> line.endsWith(" reno")),
                        "the broker's own outgoing sockets are left alone: " + seen);
            }
        }
        try (KafkaBroker broker =
                KafkaBroker.onLoopback().shortLivedJvm().agent("interval=1s").start()) {
            String host = new String(Files.readAllBytes(Path.of("/proc/sys/net/ipv4/tcp_congestion_control"))).trim();
            List<ConnectionView> sampled = LabAwait.await("a sampling round with socket state")
                    .atMost(Duration.ofSeconds(15))
                    .until(() -> {
                        List<ConnectionView> connections =
                                ConnectionView.list(broker.agentGet("/connections?top=1000"));
                        return connections.stream().anyMatch(connection -> connection.socket() != null)
                                ? connections
                                : null;
                    });
            for (ConnectionView connection : sampled) {
                if (connection.socket() != null) {
                    assertEquals(host, connection.socket().congestionControl(), "nothing written without the option");
                }
            }
        }
    }

    /**
     * A registry smaller than what the broker holds: the connections past it are counted on the
     * listener they came in on, named in a finding with the limit that covers them, and shown as a
     * meter row; once they close, both go.
     */
    @Test
    void connectionsPastTheTrackingLimitAreSaidByListenerUntilTheyClose() throws Exception {
        int held = 40;
        try (KafkaBroker broker = KafkaBroker.onLoopback()
                .shortLivedJvm()
                .agent("interval=1s,max.tracked.connections=10")
                .start()) {
            String[] hostPort = broker.bootstrapServers().split(":");
            List<SocketChannel> idle = new ArrayList<>();
            try {
                for (int i = 0; i < held; i++) {
                    idle.add(SocketChannel.open(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]))));
                }
                FindingView finding = LabAwait.await("untracked-connections on PLAINTEXT")
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> FindingView.list(broker.agentGet("/findings")).stream()
                                .filter(f -> f.is("untracked-connections")
                                        && "PLAINTEXT".equals(f.connection().listener())
                                        && f.number("untracked") >= held - 10)
                                .findFirst()
                                .orElse(null));
                System.out.println("past the tracking limit: " + finding);
                assertEquals("warn", finding.severity());
                assertEquals(10, finding.number("tcpsight.max.tracked.connections"));
                assertEquals(10, finding.number("tracked"), finding.toString());
                long expected = (long) (finding.number("tracked") + finding.number("untrackedInAll"));
                assertTrue(expected >= held, finding.toString());
                assertTrue(
                        finding.setting("tcpsight", "tcpsight.max.tracked.connections")
                                .isPresent(),
                        finding.toString());
                double row = PrometheusText.sum(
                        broker.agentGet("/metrics"), "tcpsight_connections_untracked", Map.of("listener", "PLAINTEXT"));
                assertTrue(row >= held - 10, "the meter row by listener: " + row);
            } finally {
                for (SocketChannel channel : idle) {
                    channel.close();
                }
            }
            LabAwait.await("no untracked connection left once they closed")
                    .atMost(Duration.ofSeconds(20))
                    .untilTrue(() -> FindingView.list(broker.agentGet("/findings")).stream()
                                    .noneMatch(f -> f.is("untracked-connections"))
                            && !broker.agentGet("/metrics").contains("tcpsight_connections_untracked{"));
        }
    }

    /** KAFKA_OPTS reaches Kafka's command-line tools too: with the agent and its HTTP endpoint they must still exit. */
    @Test
    void theAgentNeverKeepsAJvmFromExiting() throws Exception {
        String javaBinary =
                Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process tool = new ProcessBuilder(
                        javaBinary,
                        "-javaagent:" + System.getProperty("tcpsight.lab.agent.jar") + "=port=0,host=127.0.0.1",
                        "-cp",
                        System.getProperty("tcpsight.lab.kafka.lib") + "/*",
                        "kafka.tools.StorageTool",
                        "random-uuid")
                .redirectErrorStream(true)
                .start();
        Process toolWithHttp = new ProcessBuilder(
                        javaBinary,
                        "-javaagent:" + System.getProperty("tcpsight.lab.agent.jar") + "=port="
                                + KafkaBroker.freePort(),
                        "-cp",
                        System.getProperty("tcpsight.lab.kafka.lib") + "/*",
                        "kafka.tools.StorageTool",
                        "random-uuid")
                .redirectErrorStream(true)
                .start();
        for (Process process : new Process[] {tool, toolWithHttp}) {
            boolean exited = process.waitFor(60, TimeUnit.SECONDS);
            if (!exited) {
                process.destroyForcibly();
            }
            assertTrue(exited, "the tool did not exit with the agent loaded");
            assertEquals(
                    0,
                    process.exitValue(),
                    new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void badArgumentsGiveOneClearLineAndTheBrokerStillStarts() throws Exception {
        // two brokers, each with its own bad argument, started side by side
        List<KafkaBroker> brokers = Together.start(List.of(
                () -> KafkaBroker.onLoopback()
                        .shortLivedJvm()
                        .agent("port=abc,interval=10s")
                        .start(),
                () -> KafkaBroker.onLoopback()
                        .shortLivedJvm()
                        .agent("colour=blue,port=0")
                        .start()));
        try (KafkaBroker badPort = brokers.get(0);
                KafkaBroker unknownKey = brokers.get(1)) {
            String output = badPort.process().output();
            long lines =
                    output.lines().filter(line -> line.contains("tcpsight")).count();
            assertEquals(1, lines, output);
            assertTrue(
                    output.contains("tcpsight agent disabled, the JVM continues without it: port=abc is not valid: "
                            + "a TCP port from 0 to 65535 (0 turns the HTTP endpoint off)"),
                    output);
            assertTrue(
                    unknownKey
                            .process()
                            .output()
                            .contains("colour=blue is not valid: not a tcpsight agent setting; allowed: port, host,"),
                    unknownKey.process().output());
        }
    }

    @Test
    void aHundredThousandConnectCloseCyclesLeaveTheRegistryAndHeapAtBaseline() throws Exception {
        // A backlog of 50 (Kafka's default) overflows under a tight connect loop and each dropped SYN
        // costs a one-second retransmit; 4096 keeps the loop at full speed (20,000 cycles in 1.9 s).
        try (KafkaBroker broker = KafkaBroker.onLoopback()
                .shortLivedJvm()
                .overrides(Map.of("socket.listen.backlog.size", "4096"))
                .agent("interval=1s")
                .start()) {
            double baseline = LabAwait.await("the first sampling round")
                    .atMost(Duration.ofSeconds(15))
                    .until(() -> broker.agentGet("/metrics").contains("tcpsight_connections ")
                            ? PrometheusText.sample(broker.agentGet("/metrics"), "tcpsight_connections")
                            : null);
            long baselineObjects = trackedObjects(broker);
            String[] hostPort = broker.bootstrapServers().split(":");
            InetSocketAddress address = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
            int cycles = 100_000;
            long start = System.nanoTime();
            for (int i = 0; i < cycles; i++) {
                try (Socket socket = new Socket()) {
                    socket.setSoLinger(true, 0); // reset on close: no TIME_WAIT, so ports never run out
                    socket.connect(address, 2000);
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            // Twenty more, held until rounds have sampled them: the round the outputs read holds its connections
            // until the next round replaces it, so these are in it when they close, every time (a round that caught
            // cycles in flight once held 15 of them while the registry was back at its baseline).
            List<Socket> held = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                Socket socket = new Socket();
                socket.setSoLinger(true, 0);
                socket.connect(address, 2000);
                held.add(socket);
            }
            LabRounds.awaitMore("the agent", () -> broker.agentGet("/metrics"), 2);
            double holding = PrometheusText.sample(broker.agentGet("/metrics"), "tcpsight_connections");
            assertTrue(holding >= baseline + held.size(), "the held connections tracked: " + holding);
            for (Socket socket : held) {
                socket.close();
            }
            // the broker closes its ends, and the hooks (or the next sampling round) release them
            double after = LabAwait.await("the registry back at its baseline of " + baseline)
                    .atMost(Duration.ofSeconds(15))
                    .until(() -> {
                        double tracked = PrometheusText.sample(broker.agentGet("/metrics"), "tcpsight_connections");
                        return tracked <= baseline + 2 ? tracked : null;
                    });
            // and the round kept for the outputs is replaced: the second round from here began after the closes
            LabRounds.awaitMore("the agent", () -> broker.agentGet("/metrics"), 2);
            long afterObjects = trackedObjects(broker);
            System.out.printf(
                    "%d connect/close cycles in %.1f s; tracked connections %.0f -> %.0f; TrackedConnection objects %d -> %d%n",
                    cycles, seconds, baseline, after, baselineObjects, afterObjects);
            assertTrue(after <= baseline + 2, "registry back at baseline: " + baseline + " -> " + after);
            assertTrue(
                    afterObjects <= baselineObjects + 2,
                    "heap back at baseline: " + baselineObjects + " -> " + afterObjects);
        }
    }

    /** Live TrackedConnection instances in the broker's heap, after a full GC. */
    private static long trackedObjects(KafkaBroker broker) throws Exception {
        return LabHeap.liveInstances(broker.process(), "io.tcpsight.shaded.sampling.TrackedConnection");
    }
}
