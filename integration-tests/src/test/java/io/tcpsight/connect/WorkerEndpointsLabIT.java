package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabConnectWorker;
import io.tcpsight.lab.LabJvm;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.PrometheusText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The plugin's endpoint on a worker behind Connect's own basic auth, with the agent in the same
 * JVM: /tcpsight/* refuses who /connectors refuses, and the two endpoints' series are told apart
 * as docs/connect-plugin.md tells an operator to scrape them.
 */
// one worker and one broker, nothing across a shaped line: beside the other lab classes (HostCpu)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class WorkerEndpointsLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final String USER = "scraper";
    private static final String PASSWORD = "s3cret-scrape";
    /** Connect's basic auth reads its users from a properties file through this JAAS module. */
    private static final String LOGIN_MODULE =
            "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule";
    /** The keep rule's regex in docs/connect-plugin.md, for the agent's endpoint in a worker that also runs the plugin. */
    private static final Pattern DOCUMENTED_KEEP = Pattern.compile("\n\\s+regex: '([^']+)'\n");

    private static final Pattern SERIES_NAME = Pattern.compile("^(tcpsight_[a-z_]+)", Pattern.MULTILINE);

    @Test
    void theWorkersBasicAuthGuardsTcpsightAndTheAgentAddsOnlyItsPacingAndHostCounters() throws Exception {
        KernelLab lab = LAB.start(
                KernelLab.builder().link(Link.rtt(Duration.ofMillis(2))).clientInNamespace());
        KafkaBroker broker = KafkaBroker.inLab(lab).shortLivedJvm().start();
        Path directory = Files.createDirectories(LabPaths.work().resolve(lab.serverNamespace() + "-basic-auth"));
        Path users = Files.writeString(directory.resolve("users.properties"), USER + ": " + PASSWORD + "\n");
        Path jaas = Files.writeString(
                directory.resolve("connect-jaas.conf"),
                "KafkaConnect {\n  " + LOGIN_MODULE + " required\n  file=\"" + users + "\";\n};\n");
        try (LabConnectWorker worker = LabConnectWorker.start(
                lab,
                broker,
                Map.of(
                        "rest.extension.classes",
                        "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension,"
                                + "io.tcpsight.connect.TcpsightRestExtension",
                        "tcpsight.sample.interval.ms",
                        "1000"),
                "interval=1s,connect.rate=50",
                KafkaBroker.Version.V4_3,
                LabJvm.ofThisJvm().shortLived().withOptions(List.of("-Djava.security.auth.login.config=" + jaas)))) {
            for (String path :
                    List.of("/connectors", "/tcpsight/metrics", "/tcpsight/findings", "/tcpsight/connections")) {
                assertEquals(401, worker.status(path), path + " without credentials");
            }
            worker.basicAuth(USER, "wrong");
            assertEquals(401, worker.status("/tcpsight/connections"), "a wrong password");
            worker.basicAuth(USER, PASSWORD);
            assertEquals(200, worker.status("/connectors"));
            // A connection is counted (tcpsight_connections) when a round's census tracks it and judged later
            // in that round: the names compared are those of a whole round after the first that judged some.
            String judged = LabAwait.await("the plugin's meters of the worker's own connections")
                    .atMost(Duration.ofSeconds(60))
                    .every(Duration.ofMillis(500))
                    .explainedBy(() -> "worker output:\n" + worker.process().output())
                    .until(() -> {
                        String scrape = worker.getText("/tcpsight/metrics");
                        return PrometheusText.sum(scrape, "tcpsight_connection_opened_connections_total", Map.of()) > 0
                                ? scrape
                                : null;
                    });
            double roundsThen = PrometheusText.sample(judged, "tcpsight_round_duration_seconds_count");
            String plugin = LabAwait.await("a whole round of the plugin after it judged the connections")
                    .atMost(Duration.ofSeconds(30))
                    .every(Duration.ofMillis(250))
                    .explainedBy(() -> "worker output:\n" + worker.process().output())
                    .until(() -> {
                        String scrape = worker.getText("/tcpsight/metrics");
                        return PrometheusText.sample(scrape, "tcpsight_round_duration_seconds_count") > roundsThen
                                ? scrape
                                : null;
                    });
            String agent = worker.agent().getText("/metrics");
            Set<String> pluginNames = names(plugin);
            Set<String> agentNames = names(agent);
            Set<String> both = new TreeSet<>(agentNames);
            both.retainAll(pluginNames);
            Matcher documented = DOCUMENTED_KEEP.matcher(Files.readString(Path.of("..", "docs", "connect-plugin.md")));
            assertTrue(documented.find(), "connect-plugin.md's keep rule for the agent's series");
            Pattern keep = Pattern.compile(documented.group(1));
            Set<String> kept = new TreeSet<>();
            agentNames.stream().filter(name -> keep.matcher(name).matches()).forEach(kept::add);
            System.out.println("plugin: " + pluginNames.size() + " tcpsight series names; agent: " + agentNames.size()
                    + "; on both: " + both + "; kept from the agent: " + kept);
            // both count the worker's connections: scraped whole, both endpoints would count each twice
            assertTrue(PrometheusText.sample(agent, "tcpsight_connections") > 0, agent);
            assertTrue(both.contains("tcpsight_connections"), "both serve tcpsight_connections: " + both);
            assertTrue(kept.contains("tcpsight_connects_paced"), "the agent's pacing series: " + agentNames);
            Set<String> agentOnly = new TreeSet<>(agentNames);
            agentOnly.removeAll(pluginNames);
            assertEquals(
                    kept, agentOnly, "what is kept from the agent is what the plugin does not serve, and all of it");
        }
    }

    private static Set<String> names(String scrape) {
        Set<String> names = new TreeSet<>();
        Matcher name = SERIES_NAME.matcher(scrape);
        while (name.find()) {
            names.add(name.group(1).replaceAll("_(bucket|count|sum|total|created)$", ""));
        }
        return names;
    }
}
