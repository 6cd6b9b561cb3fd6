package io.tcpsight.connect;

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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The same plugin zip in a Kafka 3.9 Connect worker (its REST server is javax.ws.rs, where 4.x's is
 * jakarta.ws.rs), against a 3.9 broker 100 ms away: /tcpsight/* is served, the task consumers'
 * 64 KiB buffer is named, and a connector whose fetch size is a ${tcpsight:...} placeholder
 * delivers every record.
 */
class Connect39LabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final int RECORDS = 500;

    @Test
    void theSamePluginServesFindsAndAdaptsOnAConnect39Worker() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(100)).rateMbit(200))
                .clientInNamespace());
        KafkaBroker broker =
                KafkaBroker.inLab(lab).version(KafkaBroker.Version.V3_9).start();
        LabTopics.create(broker, "far39", 2);
        ConnectPluginLabIT.produce(broker, "far39", RECORDS);
        try (LabConnectWorker worker = LabConnectWorker.start(
                lab,
                broker,
                Map.of(
                        "rest.extension.classes", "io.tcpsight.connect.TcpsightRestExtension",
                        "consumer.receive.buffer.bytes", "65536",
                        "tcpsight.sample.interval.ms", "2000",
                        "config.providers", "tcpsight",
                        "config.providers.tcpsight.class", "io.tcpsight.connect.TcpsightConfigProvider"),
                null,
                KafkaBroker.Version.V3_9)) {
            Path sink = worker.directory().resolve("far39.txt");
            worker.put(
                    "/connectors/far39-sink/config",
                    Map.of(
                            "connector.class", "org.apache.kafka.connect.file.FileStreamSinkConnector",
                            "tasks.max", "2",
                            "topics", "far39",
                            "file", sink.toString(),
                            "consumer.override.max.partition.fetch.bytes",
                                    "${tcpsight:fetch:max.partition.fetch.bytes}"));
            ConnectPluginLabIT.awaitRunning(worker, "far39-sink", 2);
            FindingView finding = LabAwait.await("small-receive-buffer for the 3.9 worker's task consumers")
                    .atMost(Duration.ofSeconds(60))
                    .explainedBy(() -> "worker output:\n" + worker.process().output())
                    .until(() -> FindingView.list(worker.getText("/tcpsight/findings")).stream()
                            .filter(candidate -> candidate.is("small-receive-buffer")
                                    && !candidate.severity().equals("info")
                                    && candidate.clientIdStartsWith("connector-consumer-far39-sink-"))
                            .findFirst()
                            .orElse(null));
            List<String> lines = ConnectPluginLabIT.awaitLines(sink, RECORDS);
            List<ConnectionView> connections = ConnectionView.list(worker.getText("/tcpsight/connections?top=100"));
            String scrape = worker.getText("/tcpsight/metrics");
            String given = worker.process()
                    .output()
                    .lines()
                    .filter(line -> line.contains("max.partition.fetch.bytes = ")
                            && !line.contains("max.partition.fetch.bytes = 1048576"))
                    .findFirst()
                    .orElse("(none)");
            System.out.println("Connect 3.9 worker: " + finding);
            System.out.println("Connect 3.9 worker: " + connections.size() + " connections served, " + lines.size()
                    + " records at the sink; a task consumer was given: " + given.trim());
            assertEquals("far39-sink", finding.connection().connector());
            assertEquals(100, finding.number("rtt"), 5);
            List<String> keys = new ArrayList<>();
            finding.remedy().settings().forEach(setting -> keys.add(setting.key() + "=" + setting.value()));
            assertTrue(keys.contains("consumer.override.receive.buffer.bytes=-1"), keys.toString());
            assertTrue(
                    connections.stream()
                            .anyMatch(c ->
                                    c.clientId() != null && c.clientId().startsWith("connector-consumer-far39-sink-")),
                    "the task consumers among the served connections");
            assertTrue(scrape.contains("tcpsight_connection_rtt_seconds_bucket"), "metrics served");
            assertEquals(RECORDS, lines.size(), "every record delivered once");
            assertTrue(!given.equals("(none)"), "the placeholder resolved to a fetch size other than Kafka's default");
        }
    }
}
