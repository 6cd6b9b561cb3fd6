package io.tcpsight.mirror;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.ConnectionView;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabConnectWorker;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MirrorMaker 2 in a Connect worker, with the plugin alone: the worker and its near cluster share
 * the lab's client namespace, the far cluster is 100 ms and 200 Mbit/s away, and a
 * MirrorSourceConnector with Kafka's defaults pulls a topic from it.
 */
class MirrorMakerLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final String CONNECTOR = "mm2-far";
    private static final String REPLICATION_CONSUMER = "far->near|" + CONNECTOR + "-0|replication-consumer";

    @Test
    void thePluginNamesTheReplicationConsumerToTheFarClusterAndNothingElse() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(100)).rateMbit(200))
                .clientInNamespace());
        KafkaBroker far = KafkaBroker.inLab(lab).start();
        KafkaBroker near = KafkaBroker.inLab(lab).onClientSide().start();
        LabTopics.create(far, "orders", 1);
        LabTopics.fill(far, "orders", 5_000, 1_000);
        try (LabConnectWorker worker = LabConnectWorker.start(
                lab,
                near,
                Map.of(
                        "rest.extension.classes", "io.tcpsight.connect.TcpsightRestExtension",
                        "tcpsight.sample.interval.ms", "1000"))) {
            worker.put("/connectors/" + CONNECTOR + "/config", mirrorSource(far, near, Map.of()));
            worker.awaitRunning(CONNECTOR, 1, Duration.ofSeconds(120));
            long started = System.nanoTime();
            FindingView finding = LabAwait.await("small-receive-buffer for the replication consumer")
                    .atMost(Duration.ofSeconds(45))
                    .every(Duration.ofMillis(500))
                    .explainedBy(() -> "worker output:\n" + worker.process().output())
                    .until(() -> FindingView.list(worker.getText("/tcpsight/findings")).stream()
                            .filter(f -> f.is("small-receive-buffer")
                                    && f.severity().equals("critical")
                                    && REPLICATION_CONSUMER.equals(
                                            f.connection().clientId()))
                            .findFirst()
                            .orElse(null));
            double seconds = (System.nanoTime() - started) / 1e9;
            Thread.sleep(3_000); // three more sampling rounds: time itself is the subject
            List<FindingView> findings = FindingView.list(worker.getText("/tcpsight/findings"));
            List<ConnectionView> connections = ConnectionView.list(worker.getText("/tcpsight/connections?top=200"));
            Map<String, String> mirrorConnections = new LinkedHashMap<>();
            for (ConnectionView connection : connections) {
                if (connection.clientId() != null && connection.clientId().contains("->")) {
                    mirrorConnections.put(
                            connection.clientId() + " node "
                                    + connection.connection().nodeId(),
                            connection.connection().remote() + " flow "
                                    + connection.connection().flow());
                }
            }
            List<String> keys = new ArrayList<>();
            finding.remedy().settings().forEach(s -> keys.add(s.scope() + ": " + s.key() + "=" + s.value()));
            List<String> others = findings.stream()
                    .filter(f -> !f.severity().equals("info")
                            && f.connection().clientId() != null
                            && f.connection().clientId().contains("->")
                            && !REPLICATION_CONSUMER.equals(f.connection().clientId()))
                    .map(f ->
                            f.rule() + " " + f.severity() + " " + f.connection().clientId())
                    .collect(Collectors.toList());
            System.out.printf(
                    "MM2 in Connect: %s %s for %s (cluster %s, node %s) %.1f s after the task ran; remedy %s%n",
                    finding.rule(),
                    finding.severity(),
                    finding.connection().clientId(),
                    finding.connection().cluster(),
                    finding.connection().nodeId(),
                    seconds,
                    keys);
            System.out.println("MM2 in Connect: its connections " + mirrorConnections);
            System.out.println("MM2 in Connect: warn or critical findings for its other clients " + others);
            assertEquals("far", finding.connection().cluster());
            assertEquals(CONNECTOR, finding.connection().connector());
            assertEquals("replication-consumer", finding.connection().mirrorRole());
            assertEquals("to_client", finding.connection().flow());
            assertEquals(100, finding.number("rtt"), 5);
            assertTrue(
                    keys.contains("connector " + CONNECTOR + ": source.consumer.receive.buffer.bytes=-1"),
                    keys.toString());
            assertTrue(keys.contains("mm2.properties: far.consumer.receive.buffer.bytes=-1"), keys.toString());
            assertTrue(
                    others.isEmpty(),
                    "no warn or critical finding for MM2's clients that carry no bulk data: " + others);
            assertTrue(
                    mirrorConnections.keySet().stream().anyMatch(name -> name.contains("|replication-source-admin")),
                    "the connector's admin to the far cluster is observed too: " + mirrorConnections);

            // The same connector, the far cluster moved to a 0 ms line: nothing left to find.
            lab.changeOneWayDelay(Duration.ZERO);
            List<String> left = new ArrayList<>();
            LabAwait.await("no finding for MM2's clients at 0 ms")
                    .atMost(Duration.ofSeconds(45))
                    .every(Duration.ofMillis(500))
                    .explainedBy(left::toString)
                    .untilTrue(() -> {
                        left.clear();
                        for (FindingView f : FindingView.list(worker.getText("/tcpsight/findings"))) {
                            if (!f.severity().equals("info")
                                    && f.connection().clientId() != null
                                    && f.connection().clientId().contains("->")) {
                                left.add(f.rule() + " " + f.connection().clientId() + " rtt " + f.number("rtt"));
                            }
                        }
                        return left.isEmpty();
                    });
        }
    }

    /** A MirrorSourceConnector from far to near for the topic orders, with Kafka's defaults unless given. */
    static Map<String, String> mirrorSource(KafkaBroker far, KafkaBroker near, Map<String, String> more) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("connector.class", "org.apache.kafka.connect.mirror.MirrorSourceConnector");
        config.put("tasks.max", "1");
        config.put("source.cluster.alias", "far");
        config.put("target.cluster.alias", "near");
        config.put("source.cluster.bootstrap.servers", far.bootstrapServers());
        config.put("target.cluster.bootstrap.servers", near.bootstrapServers());
        config.put("topics", "orders");
        config.put("replication.factor", "1");
        config.put("offset-syncs.topic.replication.factor", "1");
        config.put("sync.topic.acls.enabled", "false");
        config.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.putAll(more);
        return config;
    }
}
