package io.tcpsight.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A dedicated MirrorMaker 2 JVM ({@code connect-mirror-maker.sh}: Kafka 4.3.1's MirrorMaker main
 * class) in a kernel lab's client namespace, run from an mm2.properties file, optionally with the
 * tcpsight agent and with the tcpsight Connect plugin's jars on its class path (how its
 * ConfigProvider reaches a dedicated MM2, which takes no plugin.path for its herders).
 */
public final class LabMirrorMaker implements AutoCloseable {
    private static final AtomicInteger NEXT = new AtomicInteger();

    private final LabProcess process;
    private final ConnectRest agent;

    private LabMirrorMaker(LabProcess process, ConnectRest agent) {
        this.process = process;
        this.agent = agent;
    }

    /**
     * What a dedicated MirrorMaker needs in the lab, whatever it replicates: no heartbeats (no
     * herders for the flows that are off), no ACL sync (the lab's brokers have no authorizer), and
     * every topic it creates (the replicated ones, its syncs, checkpoints, heartbeats and its
     * herders' offsets, status and configs) with one replica: the lab's clusters have one broker.
     */
    public static void forTheLab(Map<String, String> mm2Properties) {
        mm2Properties.put("emit.heartbeats.enabled", "false");
        mm2Properties.put("sync.topic.acls.enabled", "false");
        for (String key : List.of(
                "replication.factor",
                "offset-syncs.topic.replication.factor",
                "checkpoints.topic.replication.factor",
                "heartbeats.topic.replication.factor",
                "offset.storage.replication.factor",
                "status.storage.replication.factor",
                "config.storage.replication.factor")) {
            mm2Properties.put(key, "1");
        }
    }

    /**
     * Starts MirrorMaker with these mm2.properties and the agent given these arguments (its HTTP
     * endpoint on the client control link), with the JVM's own compilers and collector, as in
     * production: for a test that claims its rate.
     */
    public static LabMirrorMaker start(KernelLab lab, Map<String, String> mm2Properties, String agentArguments)
            throws IOException {
        return start(lab, mm2Properties, agentArguments, false);
    }

    /**
     * The same in a {@link LabJvm#SHORT_LIVED} JVM, as {@link LabConnectWorker#startShortLived}: for a
     * test whose claims are names, keys and the agent's pacing, no rate.
     */
    public static LabMirrorMaker startShortLived(
            KernelLab lab, Map<String, String> mm2Properties, String agentArguments) throws IOException {
        return start(lab, mm2Properties, agentArguments, true);
    }

    private static LabMirrorMaker start(
            KernelLab lab, Map<String, String> mm2Properties, String agentArguments, boolean shortLived)
            throws IOException {
        LabPrerequisites.requireKafkaRuntime(LabPaths.kafkaLib());
        LabPrerequisites.requireConnectPlugin();
        int n = NEXT.incrementAndGet();
        Path directory = Files.createDirectories(LabPaths.work().resolve(lab.serverNamespace() + "-mm2-" + n));
        Properties properties = new Properties();
        // Plugins by their ServiceLoader manifests, as the lab's Connect workers find them: without it MirrorMaker
        // scanned its whole class path once for itself and once for each herder (16.6, 11.2 and about 9 s in one
        // run), and logged that every plugin had a manifest. A herder's worker config takes the target cluster's keys.
        properties.put("plugin.discovery", "service_load");
        for (String cluster : mm2Properties.getOrDefault("clusters", "").split(",")) {
            if (!cluster.isBlank()) {
                properties.put(cluster.trim() + ".plugin.discovery", "service_load");
            }
        }
        properties.putAll(mm2Properties);
        Path file = directory.resolve("mm2.properties");
        try (var out = Files.newBufferedWriter(file)) {
            properties.store(out, "tcpsight lab dedicated MirrorMaker 2");
        }
        List<String> command = LabConnectWorker.kafkaJvm(directory);
        if (shortLived) {
            command.addAll(1, LabJvm.SHORT_LIVED);
        }
        command.add(
                "-javaagent:" + LabPaths.agentJar() + "=" + LabConnectWorker.agentOnControlLink(lab, agentArguments));
        command.addAll(List.of(
                "-cp",
                LabPaths.kafkaLib() + "/*:" + pluginJars(),
                "org.apache.kafka.connect.mirror.MirrorMaker",
                file.toString()));
        return new LabMirrorMaker(
                lab.execInClient("mm2-" + n, command), LabConnectWorker.agentEndpoint(lab, agentArguments));
    }

    private static String pluginJars() throws IOException {
        try (Stream<Path> files = Files.walk(LabPaths.connectPlugins(), 4)) {
            return files.filter(jar -> jar.toString().endsWith(".jar"))
                    .map(Path::toString)
                    .collect(Collectors.joining(":"));
        }
    }

    /** The agent's HTTP endpoint in this JVM (GET /metrics, /findings, /connections); null where the arguments named a port. */
    public ConnectRest agent() {
        return agent;
    }

    public LabProcess process() {
        return process;
    }

    /** Ends MirrorMaker at once (SIGKILL): a graceful stop timed out on its tasks (10 s) and nothing is claimed of it. */
    @Override
    public void close() {
        process.kill();
    }
}
