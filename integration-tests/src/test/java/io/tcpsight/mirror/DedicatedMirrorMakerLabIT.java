package io.tcpsight.mirror;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.ConnectionView;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabMirrorMaker;
import io.tcpsight.lab.LabRounds;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.PrometheusText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A dedicated MirrorMaker 2 ({@code connect-mirror-maker.sh}) beside its near cluster, the far
 * cluster 100 ms and 200 Mbit/s away, with the tcpsight agent loaded and the tcpsight
 * ConfigProvider declared in mm2.properties. The far cluster is replicated twice, under two
 * aliases: {@code far} with Kafka's defaults, {@code fast} with {@code ${tcpsight:fetch/fast:...}}
 * values in {@code fast.consumer.*}.
 */
// Its claims are names and keys, and its time goes to round trips across its own lab's line (a worker's
// start-up): it may run beside another lab class, each in its own lab, as VersionMatrixLabIT's releases do.
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class DedicatedMirrorMakerLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final String DEFAULTS_CONSUMER = "far->near|MirrorSourceConnector-0|replication-consumer";
    private static final String ADAPTED_CONSUMER = "fast->near|MirrorSourceConnector-0|replication-consumer";
    private static final int RECORDS = 5_000;

    @Test
    void theAgentNamesTheDefaultFlowsReplicationConsumerAndTheProviderAdaptsTheOther() throws Exception {
        FarAndNear clusters = FarAndNear.start(LAB, RECORDS);
        KernelLab lab = clusters.lab();
        KafkaBroker far = clusters.far();
        KafkaBroker near = clusters.near();
        Map<String, String> mm2 = new LinkedHashMap<>();
        mm2.put("clusters", "far, fast, near");
        mm2.put("far.bootstrap.servers", far.bootstrapServers());
        mm2.put("fast.bootstrap.servers", far.bootstrapServers());
        mm2.put("near.bootstrap.servers", near.bootstrapServers());
        mm2.put("far->near.enabled", "true");
        mm2.put("far->near.topics", "orders");
        mm2.put("fast->near.enabled", "true");
        mm2.put("fast->near.topics", "orders");
        LabMirrorMaker.forTheLab(mm2);
        mm2.put("config.providers", "tcpsight");
        mm2.put("config.providers.tcpsight.class", "io.tcpsight.connect.TcpsightConfigProvider");
        mm2.put("config.providers.tcpsight.param.tcpsight.target.throughput.mbit", "200");
        mm2.put("config.providers.tcpsight.param.tcpsight.cluster.fast.bootstrap.servers", far.bootstrapServers());
        for (String key : List.of("receive.buffer.bytes", "max.partition.fetch.bytes", "fetch.max.bytes")) {
            mm2.put("fast.consumer." + key, "${tcpsight:fetch/fast:" + key + "}");
        }
        // connect pacing: every client connect of the JVM, MM2's own clients' too
        try (LabMirrorMaker mirrorMaker =
                LabMirrorMaker.startShortLived(lab, mm2, "interval=1s,connect.rate=10,connect.burst=2")) {
            long started = System.nanoTime();
            FindingView finding = LabAwait.await("the agent's small-receive-buffer for " + DEFAULTS_CONSUMER)
                    .atMost(Duration.ofSeconds(120))
                    .every(Duration.ofMillis(500))
                    .unless(() -> !mirrorMaker.process().process().isAlive())
                    .explainedBy(() ->
                            "MirrorMaker output:\n" + mirrorMaker.process().output())
                    .until(() -> FindingView.list(mirrorMaker.agent().getText("/findings")).stream()
                            .filter(f -> f.is("small-receive-buffer")
                                    && f.severity().equals("critical")
                                    && DEFAULTS_CONSUMER.equals(f.connection().clientId()))
                            .findFirst()
                            .orElse(null));
            double seconds = (System.nanoTime() - started) / 1e9;
            LabAwait.await("both flows' records in near")
                    .atMost(Duration.ofSeconds(120))
                    .every(Duration.ofMillis(500))
                    .explainedBy(() ->
                            "MirrorMaker output:\n" + mirrorMaker.process().output())
                    .untilTrue(() -> LabTopics.endOffsets(near, "far.orders") >= RECORDS
                            && LabTopics.endOffsets(near, "fast.orders") >= RECORDS);
            // three more rounds over the idle flows
            LabRounds.awaitMore("the agent", () -> mirrorMaker.agent().getText("/metrics"), 3);
            List<FindingView> findings = FindingView.list(mirrorMaker.agent().getText("/findings"));
            List<String> others = findings.stream()
                    .filter(f -> !f.severity().equals("info")
                            && f.connection().mirrorRole() != null
                            && !DEFAULTS_CONSUMER.equals(f.connection().clientId()))
                    .map(f ->
                            f.rule() + " " + f.severity() + " " + f.connection().clientId() + " node "
                                    + f.connection().nodeId())
                    .collect(Collectors.toList());
            List<String> keys = new ArrayList<>();
            finding.remedy().settings().forEach(s -> keys.add(s.scope() + ": " + s.key() + "=" + s.value()));
            long mirrorConnections = ConnectionView.list(mirrorMaker.agent().getText("/connections?top=1000")).stream()
                    .filter(c -> c.clientId() != null && c.clientId().contains("|"))
                    .count();
            String metrics = mirrorMaker.agent().getText("/metrics");
            double paced = PrometheusText.sample(metrics, "tcpsight_connects_paced_total");
            double waited = PrometheusText.sample(metrics, "tcpsight_connects_pacing_wait_seconds_total");
            String adapted =
                    MirrorMakerLabIT.consumerSettings(mirrorMaker.process().output(), "fast->near");
            String defaults =
                    MirrorMakerLabIT.consumerSettings(mirrorMaker.process().output(), "far->near");
            System.out.printf(
                    "Dedicated MM2 with the agent: %s %s for %s (cluster %s, role %s, node %s) %.1f s after start;"
                            + " remedy %s; warn or critical findings for its other clients %s; the fast flow's"
                            + " replication consumer was given %s, the far flow's %s; connects paced %.0f (MM2"
                            + " client connections open: %d), waited %.2f s%n",
                    finding.rule(),
                    finding.severity(),
                    finding.connection().clientId(),
                    finding.connection().cluster(),
                    finding.connection().mirrorRole(),
                    finding.connection().nodeId(),
                    seconds,
                    keys,
                    others,
                    adapted,
                    defaults,
                    paced,
                    mirrorConnections,
                    waited);
            assertEquals("far", finding.connection().cluster());
            assertEquals("replication-consumer", finding.connection().mirrorRole());
            assertEquals("to_client", finding.connection().flow());
            lab.idleLine().assertQuoted(finding.number("rtt"), finding.brief());
            assertTrue(keys.contains("mm2.properties: far.consumer.receive.buffer.bytes=-1"), keys.toString());
            assertTrue(others.isEmpty(), "no warn or critical finding for MM2's other clients: " + others);
            assertTrue(adapted.contains("receive.buffer.bytes=-1"), "the fast flow's placeholders: " + adapted);
            assertTrue(
                    !adapted.contains("max.partition.fetch.bytes=1048576"), "the fast flow's placeholders: " + adapted);
            assertTrue(defaults.contains("receive.buffer.bytes=65536"), "the far flow's defaults: " + defaults);
            assertTrue(
                    paced >= mirrorConnections && mirrorConnections > 0,
                    "every connect, MM2's own clients' too, goes through pacing: " + paced + " paced, "
                            + mirrorConnections + " MM2 client connections open");
            assertTrue(waited > 0, "some connects waited for their turn: " + waited);
        }
    }
}
