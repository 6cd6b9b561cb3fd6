package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tcpsight.lab.HalfSentRequests;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabConnectWorker;
import io.tcpsight.lab.LabRounds;
import io.tcpsight.lab.Link;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The Connect plugin's worker of {@link ConnectPluginLabIT}'s small-buffer case with its broker on
 * a 0 ms line: its consumers named within the plugin's rounds, no warning, and its endpoints
 * served beside half-sent requests. Its claims are names, silence and a bound of a second on a
 * request that took 20 ms alone (a stall, not a slow host), not a rate: it shares the host, last of the lab lane's shared part (HostCpu, LaneOrder).
 */
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class PluginOnAZeroMsLineLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    @Test
    void theSameWorkerWithBrokersOnAZeroMsLineShowsNoWarning() throws Exception {
        try (LabConnectWorker worker = ConnectPluginLabIT.smallBufferWorkerWithSink(
                LAB, Link.rtt(Duration.ZERO).rateMbit(200), "near")) {
            Path sink = worker.directory().resolve("near.txt");
            ConnectPluginLabIT.awaitRunning(worker, "near-sink", 2);
            ConnectPluginLabIT.awaitLines(sink, 100);
            // a warning that would come, comes within three rounds
            LabRounds.awaitMore("the plugin", () -> worker.getText("/tcpsight/metrics"), 3);
            // A socket is named after three rounds of exact, one-to-one byte counts, from the round the census
            // first sees it: measured, the fourth round of the worker (6-8 s); counted in the plugin's rounds, not
            // in seconds, so that late rounds on a busy host do not fail the claim, five rounds leave one to spare.
            int roundsBefore = LabRounds.count(worker.getText("/tcpsight/metrics"));
            JsonNode connections = LabAwait.await("the connector's consumers named")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> {
                        JsonNode all = worker.get("/tcpsight/connections?top=100");
                        for (JsonNode connection : all) {
                            if (connection
                                    .path("connection")
                                    .path("clientId")
                                    .asText()
                                    .startsWith("connector-consumer-near-sink-")) {
                                return all;
                            }
                        }
                        return null;
                    });
            int roundsToName = LabRounds.count(worker.getText("/tcpsight/metrics")) - roundsBefore;
            assertTrue(roundsToName <= 5, "named after " + roundsToName + " more rounds of the plugin");
            Set<String> owners = new HashSet<>();
            Set<String> consumerFlows = new HashSet<>();
            connections.forEach(connection -> {
                String owner = connection.path("connection").path("clientId").asText();
                owners.add(owner);
                if (owner.startsWith("connector-consumer-near-sink-")) {
                    consumerFlows.add(connection.path("connection").path("flow").asText());
                }
            });
            System.out.println("near worker connections by owner: " + owners);
            assertTrue(
                    owners.stream().anyMatch(owner -> owner.startsWith("connector-consumer-near-sink-")),
                    "the plugin sees and names the connector's consumers: " + connections);
            // the flow comes from the client's type in JMX (which an MM2 admin client's id does not tell) and the
            // connection id: a consumer's fetch connections carry fetch responses, its coordinator's none
            assertTrue(consumerFlows.contains("to_client"), "fetch connections: " + consumerFlows);
            assertTrue(Set.of("to_client", "none").containsAll(consumerFlows), "no other flow: " + consumerFlows);
            JsonNode findings = worker.get("/tcpsight/findings");
            List<String> warnings = new ArrayList<>();
            findings.forEach(finding -> {
                if (!finding.path("severity").asText().equals("info")) {
                    warnings.add(finding.toString());
                }
            });
            assertTrue(warnings.isEmpty(), "no warn on a 0 ms line: " + warnings);

            // The plugin's endpoints are served by the worker's own REST server: half-sent requests
            // must not stall them for a scraper.
            try (HalfSentRequests slow = HalfSentRequests.hold(worker.restUrl() + "/tcpsight/metrics", 500)) {
                long worst = 0;
                for (int i = 0; i < 20; i++) {
                    long start = System.nanoTime();
                    assertTrue(worker.getText("/tcpsight/metrics").contains("tcpsight_"));
                    worst = Math.max(worst, (System.nanoTime() - start) / 1_000_000);
                }
                System.out.printf(
                        "plugin endpoint: 500 half-sent requests held, worst of 20 /tcpsight/metrics %d ms%n", worst);
                assertTrue(worst < 1000, "worst /tcpsight/metrics " + worst + " ms");
            }
        }
    }
}
