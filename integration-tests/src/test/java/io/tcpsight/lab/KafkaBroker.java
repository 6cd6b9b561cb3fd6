package io.tcpsight.lab;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node KRaft broker JVM from Maven-resolved Kafka jars (any {@link Version}), either
 * in a kernel lab's server namespace (reachable only across the delay line) or on loopback,
 * optionally with the tcpsight agent.
 */
public final class KafkaBroker implements AutoCloseable {
    /** The agent's port where its arguments give one (several brokers' agents in one namespace). */
    private static final Pattern AGENT_PORT = Pattern.compile("(?:^|,)port=(\\d+)");

    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    /**
     * The Kafka releases the lab runs: the newest of each line that resolves from Maven Central.
     * 4.3.1 is the main runtime (integration-tests/kafka-runtime), which the deep tests use; the
     * others are the version matrix (integration-tests/kafka-version-matrix/&lt;line&gt;).
     */
    public enum Version {
        V3_6("3.6.2"),
        V3_7("3.7.2"),
        V3_8("3.8.1"),
        V3_9("3.9.2"),
        V4_0("4.0.2"),
        V4_1("4.1.2"),
        V4_2("4.2.2"),
        V4_3("4.3.1"),
        V4_4("4.4.0");

        private final String release;

        Version(String release) {
            this.release = release;
        }

        Path lib() {
            return this == V4_3 ? LabPaths.kafkaLib() : LabPaths.kafkaRuntime(line());
        }

        public String release() {
            return release;
        }

        /** "3.9" for 3.9.2. */
        public String line() {
            return release.substring(0, release.lastIndexOf('.'));
        }

        /** Share groups (KIP-932) and their coordinator's internal topic: Kafka 4.x. */
        boolean hasShareGroups() {
            return !release.startsWith("3.");
        }

        /**
         * Whether the lab can run a Connect worker of this release: 4.4.0's connect-runtime
         * needs a Jetty release Maven Central does not have.
         */
        public boolean hasConnect() {
            return this != V4_4;
        }
    }

    private final String host;
    private final int port;
    private volatile LabProcess process;
    private final Integer agentPort;
    private final boolean ownsProcess;
    private final Map<String, String> clientSecurity;
    /** How to launch this broker again on the same data (loopback only): its name and command. */
    private final String name;

    private final List<String> command;
    private int restarts;
    private final long launchedNanos;
    private long listeningNanos;

    private KafkaBroker(
            String host,
            int port,
            LabProcess process,
            Integer agentPort,
            boolean ownsProcess,
            Map<String, String> clientSecurity,
            String name,
            List<String> command) {
        this.clientSecurity = Map.copyOf(clientSecurity);
        this.host = host;
        this.port = port;
        this.process = process;
        this.agentPort = agentPort;
        this.ownsProcess = ownsProcess;
        this.name = name;
        this.command = List.copyOf(command);
        this.launchedNanos = System.nanoTime();
    }

    /** From launching the broker JVM to its client listener accepting a TCP connection (20 ms resolution). */
    public double secondsToListening() {
        return (listeningNanos - launchedNanos) / 1e9;
    }

    /** A broker in the lab's server namespace with these settings; Kafka 4.3.1, no agent. */
    public static KafkaBroker start(KernelLab lab, Map<String, String> overrides)
            throws IOException, InterruptedException {
        return inLab(lab).overrides(overrides).start();
    }

    public static Builder inLab(KernelLab lab) {
        return new Builder(lab);
    }

    public static Builder onLoopback() {
        return new Builder(null);
    }

    /** Where the broker runs and with what: loopback or a lab namespace, Kafka version, agent, overrides. */
    public static final class Builder {
        private final KernelLab lab;
        private Version version = Version.V4_3;
        private final Map<String, String> overrides = new LinkedHashMap<>();
        private String agentArguments;
        private final List<String> jvmOptions = new ArrayList<>();
        /** The JVM the broker runs on: the lab's own unless {@link #onRuntime} says otherwise. */
        private Path javaHome = Path.of(System.getProperty("java.home"));
        /** null: the agent this build made. */
        private Path agentJar;

        private final Map<String, String> clientSecurity = new LinkedHashMap<>();
        /** A node of a loopback cluster ({@link KafkaCluster}); a single node by default. */
        private int nodeId = 1;

        private String quorumVoters;
        private String clusterId;
        private int clusterPort;
        private int clusterControllerPort;
        private int internalTopicReplicas = 1;
        /** Where the CONTROLLER listener binds: loopback, unless the quorum spans the line. */
        private String controllerHost = "127.0.0.1";
        /** In the lab's client namespace (a near cluster beside a Connect worker) rather than its server's. */
        private boolean clientSide;
        /** Maps the lab's class archive where it can ({@link SharedClasses}). */
        private boolean sharedClasses = true;

        private Builder(KernelLab lab) {
            this.lab = lab;
        }

        public Builder version(Version value) {
            version = value;
            return this;
        }

        /**
         * The broker runs in the lab's client namespace, beside the client side's processes (a
         * Connect worker's near cluster, 0 ms away), on ports 19092 and 19093, advertised at the
         * client namespace's control address, which the test JVM reaches too. Needs a lab whose
         * client is in a namespace.
         */
        public Builder onClientSide() {
            clientSide = true;
            return this;
        }

        public Builder overrides(Map<String, String> values) {
            overrides.putAll(values);
            return this;
        }

        /** Starts the broker with the tcpsight agent and these arguments (host and port are added when absent). */
        public Builder agent(String arguments) {
            agentArguments = arguments;
            return this;
        }

        /**
         * The client listener speaks SASL/PLAIN (it keeps the name PLAINTEXT, mapped to
         * SASL_PLAINTEXT). The admin user is also the broker's own login and the readiness check's;
         * {@code users} may log in too.
         */
        public Builder saslPlain(String adminUser, String adminPassword, Map<String, String> users) {
            StringBuilder jaas = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required")
                    .append(" username=\"")
                    .append(adminUser)
                    .append("\" password=\"")
                    .append(adminPassword)
                    .append("\" user_")
                    .append(adminUser)
                    .append("=\"")
                    .append(adminPassword)
                    .append('"');
            users.forEach((user, password) -> jaas.append(" user_")
                    .append(user)
                    .append("=\"")
                    .append(password)
                    .append('"'));
            overrides.put("listener.security.protocol.map", "PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT");
            overrides.put("sasl.enabled.mechanisms", "PLAIN");
            overrides.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
            overrides.put(
                    "listener.name.plaintext.plain.sasl.jaas.config",
                    jaas.append(';').toString());
            clientSecurity.putAll(saslClient(adminUser, adminPassword));
            return this;
        }

        /** One more SASL/PLAIN user beside the admin; only after {@link #saslPlain} or {@link #saslOverTls}. */
        public Builder saslUser(String user, String password) {
            String jaas = overrides.get("listener.name.plaintext.plain.sasl.jaas.config");
            if (jaas == null) {
                throw new IllegalStateException("saslUser needs saslPlain or saslOverTls first");
            }
            overrides.put(
                    "listener.name.plaintext.plain.sasl.jaas.config",
                    jaas.substring(0, jaas.length() - 1) + " user_" + user + "=\"" + password + "\";");
            return this;
        }

        /**
         * The client listener speaks TLS and requires a client certificate (it keeps the name
         * PLAINTEXT, mapped to SSL); a client's principal is then "User:CN=<name>". The broker's own
         * key is also its readiness check's.
         */
        public Builder mutualTls(LabTls tls) {
            overrides.put("listener.security.protocol.map", "PLAINTEXT:SSL,CONTROLLER:PLAINTEXT");
            overrides.putAll(tls.brokerListener());
            clientSecurity.putAll(tls.client("broker"));
            return this;
        }

        /**
         * The client listener speaks TLS and asks for no client certificate (it keeps the name
         * PLAINTEXT, mapped to SSL), as a Strimzi cluster's internal TLS listener without client
         * authentication: clients trust the broker's PEM certificate ({@link LabTls#trustingBroker()}).
         */
        public Builder serverTls(LabTls tls) {
            overrides.put("listener.security.protocol.map", "PLAINTEXT:SSL,CONTROLLER:PLAINTEXT");
            overrides.putAll(tls.brokerListenerServerOnly());
            clientSecurity.putAll(tls.trustingBroker());
            return this;
        }

        /**
         * The client listener speaks SASL/PLAIN over TLS (it keeps the name PLAINTEXT, mapped to
         * SASL_SSL): both of the above, the principal from SASL.
         */
        public Builder saslOverTls(LabTls tls, String adminUser, String adminPassword) {
            saslPlain(adminUser, adminPassword, Map.of());
            mutualTls(tls);
            overrides.put("listener.security.protocol.map", "PLAINTEXT:SASL_SSL,CONTROLLER:PLAINTEXT");
            clientSecurity.put("security.protocol", "SASL_SSL");
            return this;
        }

        /**
         * This broker as one combined (broker and controller) node of a loopback cluster: its
         * id and ports, the quorum's voters ("1@127.0.0.1:port,..."), the cluster id every node
         * is formatted with, and the replicas of Kafka's internal topics.
         */
        Builder clusterNode(int id, int port, int controllerPort, String voters, String cluster, int internalReplicas) {
            nodeId = id;
            clusterPort = port;
            clusterControllerPort = controllerPort;
            quorumVoters = voters;
            clusterId = cluster;
            internalTopicReplicas = internalReplicas;
            return this;
        }

        /**
         * Maps no class archive ({@link SharedClasses}): for a broker an agent is attached to later,
         * which rewrites archived classes in place, for the broker that writes the archive, and for a
         * benchmark's side by side runs, whose figures are of JVMs that load their classes from jars.
         */
        public Builder withoutSharedClasses() {
            sharedClasses = false;
            return this;
        }

        /** The CONTROLLER listener on this address: a quorum whose voters sit on both sides of the line. */
        Builder controllerHost(String address) {
            controllerHost = address;
            return this;
        }

        public Builder jvmOption(String option) {
            jvmOptions.add(option);
            return this;
        }

        public Builder jvmOptions(List<String> options) {
            jvmOptions.addAll(options);
            return this;
        }

        /**
         * {@link LabJvm#SHORT_LIVED}: for a test that claims names, keys, endpoints, restarts or bounds.
         * Such a broker also keeps its consumer offsets in one partition, not Kafka's 50: the first
         * group to join made the broker create and lead all 50, 0.93-1.33 CPU-s against 0.40-0.56
         * with one (measured on loopback, docs/lab.md), for a topic no test reads.
         */
        public Builder shortLivedJvm() {
            jvmOptions.addAll(LabJvm.SHORT_LIVED);
            return this;
        }

        /** The agent from this jar instead of the one this build made (a benchmark's side-by-side runs). */
        public Builder agentJar(Path jar) {
            agentJar = jar;
            return this;
        }

        /** Runs the broker on the Java runtime at this home (LabPrerequisites.requireJavaRuntime). */
        public Builder onRuntime(Path home) {
            javaHome = home;
            return this;
        }

        public KafkaBroker start() throws IOException, InterruptedException {
            KafkaBroker started = launch();
            try {
                started.awaitReady(Duration.ofSeconds(90));
            } catch (AssertionError | RuntimeException failure) {
                started.close();
                throw failure;
            }
            return started;
        }

        /** Formats the storage and starts the JVM, without waiting: a cluster's nodes wait for each other. */
        KafkaBroker launch() throws IOException, InterruptedException {
            LabPrerequisites.requireKafkaRuntime(version.lib());
            String host = lab == null ? "127.0.0.1" : clientSide ? lab.clientControlAddress() : lab.serverAddress();
            int labPort = clientSide ? 19092 : 9092;
            int port = clusterPort > 0 ? clusterPort : lab == null ? freePort() : labPort;
            int controllerPort =
                    clusterControllerPort > 0 ? clusterControllerPort : lab == null ? freePort() : labPort + 1;
            // the nodes of a cluster in one namespace each have their own storage and output
            String processName =
                    "kafka-" + version.release() + (lab != null && quorumVoters != null ? "-node" + nodeId : "");
            String name = (lab == null
                            ? "loopback-" + ProcessHandle.current().pid() + "-" + NEXT.incrementAndGet()
                            : lab.serverNamespace() + (clientSide ? "-near" : ""))
                    + "-" + processName;
            Path directory = Files.createDirectories(LabPaths.work().resolve(name));
            Path config = writeConfig(directory, host, port, controllerPort);
            if (lab != null) {
                lab.removeAtClose(directory.resolve("data"));
            }
            List<String> java = new ArrayList<>(Arrays.asList(
                    javaHome.resolve("bin").resolve("java").toString(),
                    "-Xms256m",
                    "-Xmx1g",
                    "-Dlog4j2.configurationFile=" + writeLog4j2(directory),
                    "-Dlog4j.configuration=file:" + writeLog4j1(directory)));
            java.addAll(jvmOptions);
            if (sharedClasses) {
                java.addAll(SharedClasses.options(SharedClasses.Kind.BROKER, version, javaHome));
            }
            Integer agentPort = null;
            if (agentArguments != null) {
                String arguments = agentArguments;
                Matcher givenPort = AGENT_PORT.matcher(arguments);
                if (givenPort.find()) {
                    int given = Integer.parseInt(givenPort.group(1));
                    agentPort = given == 0 ? null : given;
                } else if (arguments.contains("port=")) {
                    agentPort = null; // a port the agent refuses (a test of its arguments): no endpoint
                } else {
                    agentPort = lab == null ? freePort() : 9464;
                    arguments = arguments + (arguments.isEmpty() ? "" : ",") + "port=" + agentPort;
                }
                if (!arguments.contains("host=") && lab != null) {
                    arguments = arguments + ",host=" + host; // so the test JVM can reach it across the line
                }
                java.add("-javaagent:" + (agentJar != null ? agentJar : LabPaths.agentJar()) + "=" + arguments);
            }
            java.addAll(Arrays.asList("-cp", version.lib() + "/*"));
            String cluster = clusterId != null ? clusterId : Uuid.randomUuid().toString();
            List<String> format = new ArrayList<>(java.subList(0, 5));
            // a tool that writes a few files: its JIT's C2 would compile for a steady state it never reaches
            format.addAll(LabJvm.SHORT_LIVED);
            format.addAll(Arrays.asList(
                    "-cp",
                    version.lib() + "/*",
                    "kafka.tools.StorageTool",
                    "format",
                    "-t",
                    cluster,
                    "-c",
                    config.toString()));
            FormattedStorage.prepare(version.lib(), overrides, directory.resolve("data"), cluster, nodeId, () -> {
                try (LabProcess formatting = LabProcess.start(name + "-format", format)) {
                    if (formatting.awaitExit(Duration.ofSeconds(60)) != 0) {
                        throw new IOException("formatting Kafka storage failed:\n" + formatting.output());
                    }
                }
            });
            List<String> broker = new ArrayList<>(java);
            broker.addAll(Arrays.asList("kafka.Kafka", config.toString()));
            LabProcess process = lab == null
                    ? LabProcess.start(name, broker)
                    : clientSide ? lab.execInClient(processName, broker) : lab.execInServer(processName, broker);
            return new KafkaBroker(host, port, process, agentPort, lab == null, clientSecurity, name, broker);
        }

        private Path writeConfig(Path directory, String host, int port, int controllerPort) throws IOException {
            Properties properties = new Properties();
            properties.setProperty("process.roles", "broker,controller");
            properties.setProperty("node.id", Integer.toString(nodeId));
            properties.setProperty(
                    "controller.quorum.voters",
                    quorumVoters != null ? quorumVoters : nodeId + "@" + controllerHost + ":" + controllerPort);
            properties.setProperty(
                    "listeners",
                    "PLAINTEXT://" + host + ":" + port + ",CONTROLLER://" + controllerHost + ":" + controllerPort);
            properties.setProperty("advertised.listeners", "PLAINTEXT://" + host + ":" + port);
            properties.setProperty("controller.listener.names", "CONTROLLER");
            properties.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            properties.setProperty("log.dirs", directory.resolve("data").toString());
            String replicas = Integer.toString(internalTopicReplicas);
            properties.setProperty("offsets.topic.replication.factor", replicas);
            properties.setProperty("transaction.state.log.replication.factor", replicas);
            properties.setProperty("transaction.state.log.min.isr", "1");
            if (version.hasShareGroups()) {
                properties.setProperty("share.coordinator.state.topic.replication.factor", replicas);
                properties.setProperty("share.coordinator.state.topic.min.isr", "1");
            }
            properties.setProperty("group.initial.rebalance.delay.ms", "0");
            if (jvmOptions.containsAll(LabJvm.SHORT_LIVED)) {
                properties.setProperty("offsets.topic.num.partitions", "1");
            }
            properties.putAll(overrides);
            Path config = directory.resolve("server.properties");
            try (var out = Files.newBufferedWriter(config)) {
                properties.store(out, "tcpsight lab broker");
            }
            return config;
        }
    }

    /** WARN, with tcpsight at INFO, to the console: for every lab JVM on Kafka's log4j2 jars. */
    static Path writeLog4j2(Path directory) throws IOException {
        Path file = directory.resolve("log4j2.properties");
        Files.write(
                file,
                List.of(
                        "rootLogger.level = WARN",
                        "rootLogger.appenderRef.console.ref = console",
                        "appender.console.type = Console",
                        "appender.console.name = console",
                        "appender.console.layout.type = PatternLayout",
                        "appender.console.layout.pattern = [%d] %p %m (%c)%n",
                        "logger.tcpsight.name = io.tcpsight",
                        "logger.tcpsight.level = INFO"),
                StandardCharsets.UTF_8);
        return file;
    }

    /** WARN, with tcpsight at INFO, to the console: for Kafka 3.x JVMs (reload4j). */
    static Path writeLog4j1(Path directory) throws IOException {
        Path file = directory.resolve("log4j.properties");
        Files.write(
                file,
                List.of(
                        "log4j.rootLogger=WARN, stdout",
                        "log4j.logger.io.tcpsight=INFO",
                        "log4j.appender.stdout=org.apache.log4j.ConsoleAppender",
                        "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout",
                        "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n"),
                StandardCharsets.UTF_8);
        return file;
    }

    /** A TCP port free on this host right now. */
    /**
     * A port free now and not handed out before in this JVM. The kernel may offer a just-closed port
     * again at once: a broker's client, controller and agent ports come from three calls in a row,
     * and once the agent and the controller got the same one (the controller's bind failed).
     */
    /**
     * A port no other test was handed and nothing listens on, below the kernel's ephemeral range
     * ({@code net.ipv4.ip_local_port_range}): a port of that range, as a bind to port 0 gives, can be
     * taken as the local port of any outgoing connection on the host before its process binds it,
     * and a lane beside this one connects all the time. Falls back to port 0 where the range leaves
     * no room below it.
     */
    public static int freePort() throws IOException {
        int below = ephemeralLow();
        for (int tries = 0; below > PORTS_FROM + 1_000 && tries < 1_000; tries++) {
            int candidate = PORTS_FROM + RANDOM.nextInt(below - PORTS_FROM);
            if (HANDED_OUT.contains(candidate)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket(candidate)) {
                if (HANDED_OUT.add(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            } catch (IOException taken) {
                // listened on already: another
            }
        }
        while (true) {
            try (ServerSocket socket = new ServerSocket(0)) {
                if (HANDED_OUT.add(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            }
        }
    }

    /** Where freePort's ports start: above the well-known and most registered services' ports. */
    private static final int PORTS_FROM = 20_000;

    private static final Random RANDOM = new Random();

    /** The first port of the kernel's ephemeral range; 0 when it cannot be read. */
    private static int ephemeralLow() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException unreadable) {
            return 0;
        }
    }

    /** A SASL/PLAIN client's security settings for this user (security.protocol, mechanism, JAAS). */
    public static Map<String, String> saslClient(String user, String password) {
        return Map.of(
                "security.protocol",
                "SASL_PLAINTEXT",
                "sasl.mechanism",
                "PLAIN",
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user + "\" password=\""
                        + password + "\";");
    }

    /** What a client of the broker's admin user adds to bootstrap.servers: empty without SASL or TLS. */
    public Map<String, String> adminSecurity() {
        return clientSecurity;
    }

    public String bootstrapServers() {
        return host + ":" + port;
    }

    public LabProcess process() {
        return process;
    }

    /** The agent's HTTP endpoint, e.g. http://127.0.0.1:9464. */
    public String agentUrl() {
        if (agentPort == null) {
            throw new IllegalStateException("this broker runs without the agent's HTTP endpoint");
        }
        return "http://" + host + ":" + agentPort;
    }

    /** GET on the agent's endpoint. */
    public String agentGet(String path) throws IOException, InterruptedException {
        return httpGet(agentUrl() + path);
    }

    /** GET a URL; anything but 200 is an IOException with the status and body. */
    public static String httpGet(String url) throws IOException, InterruptedException {
        return httpGet(url, null);
    }

    /** The same with this Authorization header (null: none), for an agent behind a token. */
    public static String httpGet(String url, String authorization) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(10))
                .GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        HttpResponse<String> response =
                HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + url + " -> " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    /**
     * Stops the broker as an operator's restart does (SIGTERM: a controlled shutdown, SIGKILL after
     * 10 s) and starts it again on the same data and settings; returns once it answers. Loopback only.
     */
    public void restart() throws IOException, InterruptedException {
        if (!ownsProcess) {
            throw new IllegalStateException("only a loopback broker restarts: a lab broker runs in its namespace");
        }
        process.close();
        restarts++;
        process = LabProcess.start(name + "-restart-" + restarts, command);
        awaitReady(Duration.ofSeconds(90));
    }

    void awaitReady(Duration timeout) throws InterruptedException {
        awaitListening(timeout);
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "lab-readiness");
        config.putAll(clientSecurity);
        AtomicReference<Exception> last = new AtomicReference<>();
        try (Admin admin = Admin.create(config)) {
            LabAwait.await("Kafka broker " + bootstrapServers() + " ready")
                    .atMost(timeout)
                    .unless(() -> !process.process().isAlive())
                    .explainedBy(() -> last.get() + ". Output:\n" + process.output())
                    .untilTrue(() -> {
                        try {
                            return !admin.describeCluster()
                                    .nodes()
                                    .get(5, TimeUnit.SECONDS)
                                    .isEmpty();
                        } catch (ExecutionException | TimeoutException notYet) {
                            last.set(notYet);
                            return false;
                        }
                    });
        }
    }

    /** A plain TCP probe: an Admin client's reconnect backoff (up to 1 s) would blur startup times. */
    private void awaitListening(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && process.process().isAlive()) {
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress(host, port), 1000);
                listeningNanos = System.nanoTime();
                return;
            } catch (IOException notYet) {
                Thread.sleep(20);
            }
        }
    }

    /**
     * Ends a loopback broker at once (SIGKILL), as a lab's close ends a lab broker: no test claims
     * anything of its stop, and a cluster's last node waited 10 s for a quorum already gone.
     * {@link #restart()} stops it as an operator would.
     */
    @Override
    public void close() {
        if (ownsProcess) {
            process.kill();
        }
    }
}
