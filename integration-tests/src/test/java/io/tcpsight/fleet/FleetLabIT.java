package io.tcpsight.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KafkaCluster;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabConnectWorker;
import io.tcpsight.lab.LabDoctor;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.RemoteConsumer;
import io.tcpsight.lab.RemoteProducer;
import io.tcpsight.lab.Together;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * One answer for a fleet: three brokers 100 ms from their clients, broker 1 with the agent open,
 * broker 2 with the agent behind a bearer token, broker 3 with no agent listening where the fleet
 * looks (an agent stopped); a topic led by each; consumers across the line, one with
 * receive.buffer.bytes=65536 (limited), one as the rules would have it (the control); and a Connect
 * worker with the plugin, whose sink connector's consumers have a 64 KiB buffer. The unzipped
 * doctor's {@code bin/tcpsight fleet} names each limited owner once, in its own keys, with what its
 * connections should gain, never the control, lists broker 3 as not answering, and without the
 * token lists broker 2 as refusing and still reports the rest. The brokers' agents are the ground
 * truth: every owner the fleet names is one they or the worker's plugin named.
 */
// nothing here is timed: windows and their findings, beside the other lane
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class FleetLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPIC = "regional";
    private static final String LIMITED = "consumer-64k";
    private static final String CONTROL = "consumer-auto";
    private static final String CONNECTOR = "slow";
    private static final String TOKEN = "fleet-lab-token-7d1c";
    /** The agents' ports: the brokers share the server's lab address. Nothing listens on broker 3's. */
    private static final int[] AGENT_PORTS = {9464, 9465, 9466};
    /** Long enough for the limited flows to be judged in a few rounds of 1 s once every client runs. */
    private static final Duration NAMED_WITHIN = Duration.ofSeconds(45);

    @Test
    void everyLimitedOwnerOnceWithItsKeysAndGainNoControlAndTheAgentsThatDoNotAnswerListed() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(100)).rateMbit(200))
                .clientInNamespace());
        Path token = Files.writeString(
                Files.createDirectories(LabPaths.work()).resolve(lab.serverNamespace() + "-fleet-token"), TOKEN + "\n");
        lab.removeAtClose(token);
        // windows and findings, no rate: the brokers and the worker compile with C1 alone (LabJvm.SHORT_LIVED)
        try (KafkaCluster cluster = KafkaCluster.inLabShortLived(lab, 3, Map.of(), node -> switch (node) {
            case 1 -> "interval=1s,port=" + AGENT_PORTS[0];
            case 2 -> "interval=1s,port=" + AGENT_PORTS[1] + ",http.auth.token.file=" + token;
            default -> null; // broker 3: no agent where the fleet looks
        })) {
            KafkaBroker first = cluster.node(1);
            LabTopics.create(first, TOPIC, 3);
            long seconds = NAMED_WITHIN.toSeconds() + 60;
            // 600 records of 1,000 bytes every 100 ms, 2 MB/s a partition, from the brokers' side of the line: well
            // above what a 64 KiB consumer's window carries over 100 ms (81,120 bytes measured, 0.81 MB/s), so the
            // limited consumer is behind the feed in every round and each fetch response fills its window
            LabProcess feed = lab.javaInServer(
                    "fleet-feed",
                    RemoteProducer.class,
                    cluster.bootstrapServers(),
                    TOPIC,
                    "fleet-feed",
                    Long.toString(seconds),
                    "lab.pace.records=600",
                    "lab.pace.every.ms=100",
                    "linger.ms=5");
            Map<String, String> workerConfig = new HashMap<>();
            workerConfig.put("bootstrap.servers", cluster.bootstrapServers());
            workerConfig.put("rest.extension.classes", "io.tcpsight.connect.TcpsightRestExtension");
            workerConfig.put("tcpsight.sample.interval.ms", "1000");
            List<LabProcess> consumers = new ArrayList<>();
            try (LabConnectWorker worker = LabConnectWorker.startShortLived(lab, first, workerConfig, null)) {
                worker.put(
                        "/connectors/" + CONNECTOR + "/config",
                        Map.of(
                                "connector.class",
                                "org.apache.kafka.connect.file.FileStreamSinkConnector",
                                "tasks.max",
                                "1",
                                "topics",
                                TOPIC,
                                "file",
                                worker.directory().resolve(CONNECTOR + ".txt").toString(),
                                "consumer.override.receive.buffer.bytes",
                                "65536"));
                consumers.add(lab.javaInClient(
                        LIMITED,
                        RemoteConsumer.class,
                        cluster.bootstrapServers(),
                        TOPIC,
                        LIMITED,
                        Long.toString(seconds),
                        "receive.buffer.bytes=65536"));
                // what the rules ask at 100 ms and the 100 Mbit/s target: nothing to say of this one
                consumers.add(lab.javaInClient(
                        CONTROL,
                        RemoteConsumer.class,
                        cluster.bootstrapServers(),
                        TOPIC,
                        CONTROL,
                        Long.toString(seconds),
                        "receive.buffer.bytes=-1",
                        "max.partition.fetch.bytes=11534336",
                        "max.poll.records=51200"));
                worker.awaitRunning(CONNECTOR, 1, Duration.ofSeconds(90));
                Set<String> named = awaitNamed(cluster, worker);
                String workerUrl = "http://" + lab.clientControlAddress() + ":8083";
                List<String> args = new ArrayList<>(List.of(
                        "fleet",
                        "--bootstrap-server",
                        first.bootstrapServers(),
                        "--connect-worker",
                        workerUrl,
                        "--timeout-ms",
                        "5000",
                        "--json"));
                // broker 1's agent where the fleet looks by default (its host, port 9464); the others share that host
                for (int node = 2; node <= 3; node++) {
                    args.add("--agent");
                    args.add(node + "=http://" + lab.serverAddress() + ":" + AGENT_PORTS[node - 1]);
                }
                List<String> withToken = new ArrayList<>(args);
                withToken.addAll(List.of("--agent-token-file", token.toString()));
                // the two reports at once: each waits on its sources' answers across the line far more than on the CPU
                LabDoctor.Run[] runs = new LabDoctor.Run[2];
                Together.run(List.of(
                        () -> {
                            runs[0] = LabDoctor.command(Duration.ofSeconds(60), withToken.toArray(new String[0]));
                            return null;
                        },
                        () -> {
                            runs[1] = LabDoctor.command(Duration.ofSeconds(60), args.toArray(new String[0]));
                            return null;
                        }));
                LabDoctor.Run run = runs[0];
                LabDoctor.Run refused = runs[1];
                System.out.println("fleet, with the token: " + run);
                System.out.println("fleet, without: " + refused.out().strip());
                System.out.println("named by the agents and the plugin: " + named);

                assertEquals(1, run.exit(), "something to change: " + run);
                assertFalse(run.out().contains(TOKEN) || run.err().contains(TOKEN), "the token, printed");
                JsonNode report = JSON.readTree(run.out());
                JsonNode sources = report.path("sources");
                assertTrue(sources.get(0).path("answered").asBoolean(), "broker 1: " + sources.get(0));
                assertTrue(
                        sources.get(1).path("answered").asBoolean(), "broker 2, behind the token: " + sources.get(1));
                assertFalse(sources.get(2).path("answered").asBoolean(true), "broker 3: " + sources.get(2));
                assertTrue(
                        sources.get(2).path("reason").asText().startsWith("connection refused"),
                        sources.get(2).toString());
                assertTrue(sources.get(3).path("answered").asBoolean(), "the worker: " + sources.get(3));

                Map<String, JsonNode> owners = new HashMap<>();
                List<String> every = new ArrayList<>();
                for (JsonNode client : report.path("clients")) {
                    String who = client.path("who").get(0).asText();
                    every.add(who);
                    if (actionable(client)) {
                        owners.put(who, client);
                    }
                }
                assertEquals(every.size(), new TreeSet<>(every).size(), "an owner named twice: " + every);
                // the ground truth: what the agents and the plugin name at warn or critical, before and after the run
                Set<String> namedAfter = named(cluster, worker);
                Set<String> always = new TreeSet<>(named);
                always.retainAll(namedAfter);
                Set<String> ever = new TreeSet<>(named);
                ever.addAll(namedAfter);
                System.out.println("named before the fleet ran: " + named + "; after: " + namedAfter);
                assertTrue(
                        owners.keySet().containsAll(always), "an owner named before and after, missing: " + run.out());
                assertTrue(ever.containsAll(owners.keySet()), "an owner no agent or plugin named: " + run.out());
                assertTrue(
                        owners.keySet().containsAll(Set.of("client.id " + LIMITED, "connector " + CONNECTOR)),
                        owners.keySet().toString());
                assertFalse(every.contains("client.id " + CONTROL), "the control: " + every);

                JsonNode limited = owners.get("client.id " + LIMITED);
                assertTrue(changes(limited).contains("receive.buffer.bytes=-1 (client, java)"), limited.toString());
                Set<String> concerns = texts(limited.path("concerns"));
                assertTrue(concerns.containsAll(Set.of("broker 1", "broker 2")), limited.toString());
                assertFalse(concerns.contains("broker 3"), "broker 3's agent did not answer: " + limited);
                assertTrue(limited.path("gainMbit").asDouble() > 0, "what its connections gain: " + limited);
                JsonNode connector = owners.get("connector " + CONNECTOR);
                assertTrue(
                        changes(connector)
                                .contains("consumer.override.receive.buffer.bytes=-1 (connector " + CONNECTOR + ")"),
                        connector.toString());

                assertEquals(1, refused.exit(), refused.toString());
                JsonNode without = JSON.readTree(refused.out());
                assertTrue(
                        without.path("sources").get(1).path("reason").asText().startsWith("HTTP 401"),
                        without.path("sources").get(1).toString());
                assertTrue(
                        texts(without.path("clients")).stream().anyMatch(client -> client.contains(LIMITED)),
                        "the rest is still reported: " + refused.out());
            } finally {
                consumers.forEach(consumer -> consumer.process().destroy());
                feed.process().destroy();
            }
        }
    }

    private static boolean actionable(JsonNode entry) {
        for (JsonNode severity : entry.path("rules")) {
            if (severity.asText().equals("warn") || severity.asText().equals("critical")) {
                return true;
            }
        }
        return false;
    }

    private static Set<String> changes(JsonNode entry) {
        Set<String> changes = new TreeSet<>();
        entry.path("changes")
                .forEach(change -> changes.add(change.path("change").asText()));
        return changes;
    }

    private static Set<String> texts(JsonNode array) {
        Set<String> texts = new TreeSet<>();
        array.forEach(item -> texts.add(item.isTextual() ? item.asText() : item.toString()));
        return texts;
    }

    /** Waits until the agents of brokers 1 and 2 name the limited consumer and a source names the connector. */
    private static Set<String> awaitNamed(KafkaCluster cluster, LabConnectWorker worker) throws Exception {
        long end = System.nanoTime() + NAMED_WITHIN.toNanos();
        Set<String> named = Set.of();
        while (System.nanoTime() < end) {
            named = namedWhere(cluster, worker);
            if (named.contains("client.id " + LIMITED + " on broker 1")
                    && named.contains("client.id " + LIMITED + " on broker 2")
                    && named.contains("connector " + CONNECTOR)) {
                return owners(named);
            }
            Thread.sleep(1000);
        }
        StringBuilder said = new StringBuilder();
        said(said, "plugin", worker.getText("/tcpsight/findings"));
        said(said, "broker 1", cluster.node(1).agentGet("/findings"));
        throw new AssertionError("within " + NAMED_WITHIN.toSeconds()
                + " s, not named on brokers 1 and 2 the limited consumer, and by a source the connector: " + named
                + said);
    }

    /** Each finding of one source on a line of its own: rule, severity, connector and settings, for a failure's message. */
    private static void said(StringBuilder said, String source, String findings) throws Exception {
        for (FindingView finding : FindingView.list(findings)) {
            said.append("\n  ")
                    .append(source)
                    .append(": ")
                    .append(finding.brief())
                    .append(' ')
                    .append(finding.severity())
                    .append(' ')
                    .append(finding.connection().connector())
                    .append(' ')
                    .append(finding.remedy().settings().stream()
                            .map(FindingView.Setting::brief)
                            .toList());
        }
    }

    /** Every owner the agents of brokers 1 and 2 or the worker's plugin name at warn or critical now. */
    private static Set<String> named(KafkaCluster cluster, LabConnectWorker worker) throws Exception {
        return owners(namedWhere(cluster, worker));
    }

    private static Set<String> owners(Set<String> namedWhere) {
        Set<String> owners = new TreeSet<>();
        for (String one : namedWhere) {
            int on = one.indexOf(" on ");
            owners.add(on < 0 ? one : one.substring(0, on));
        }
        return owners;
    }

    /** Each owner named at warn or critical, as "OWNER on broker N" where an agent named it, "OWNER" by the plugin. */
    private static Set<String> namedWhere(KafkaCluster cluster, LabConnectWorker worker) throws Exception {
        Set<String> named = new TreeSet<>();
        for (int node = 1; node <= 2; node++) {
            String answer = node == 1
                    ? cluster.node(1).agentGet("/findings")
                    : KafkaBroker.httpGet(cluster.node(2).agentUrl() + "/findings", "Bearer " + TOKEN);
            String where = " on broker " + node;
            for (FindingView finding : FindingView.list(answer)) {
                owner(finding).ifPresent(owner -> named.add(owner + where));
            }
        }
        for (FindingView finding : FindingView.list(worker.getText("/tcpsight/findings"))) {
            owner(finding).ifPresent(named::add);
        }
        return named;
    }

    /** The owner of a client's warn or critical finding, as the fleet names it; empty for info or a broker's own. */
    private static Optional<String> owner(FindingView finding) {
        if (finding.severity().equals("info")
                || finding.remedy().settings().stream().noneMatch(setting -> clientScope(setting.scope()))) {
            return Optional.empty();
        }
        if (finding.connection().connector() != null) {
            return Optional.of("connector " + finding.connection().connector());
        }
        return Optional.ofNullable(finding.connection().clientId()).map(id -> "client.id " + id);
    }

    private static boolean clientScope(String scope) {
        return scope.equals("client") || scope.startsWith("connector ") || scope.equals("mm2.properties");
    }
}
