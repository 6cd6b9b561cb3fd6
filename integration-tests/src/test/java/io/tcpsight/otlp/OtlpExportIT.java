package io.tcpsight.otlp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.tcpsight.lab.DashboardQueries;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.PrometheusServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The OTLP push into a real OpenTelemetry Collector (the lab's otelcol: an OTLP/HTTP receiver and
 * a file exporter): the broker agent and a plain consumer's reporter push every second, and what
 * the collector received is read back from its file. The RTT arrives as a histogram with
 * tcpsight's bounds, the findings as a gauge by rule and severity, with the semantic
 * conventions' attributes. The collector is the one docs/dashboards/clients-otel-collector.yaml
 * describes: a real Prometheus scraping it answers every query of the client dashboard from the
 * reporter's push.
 */
// runs nothing across the delay line: may run beside the lab classes (HostCpu)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class OtlpExportIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Path DOCUMENTED_COLLECTOR = Path.of("..", "docs", "dashboards", "clients-otel-collector.yaml");

    @Test
    void theAgentAndTheReporterPushTheirMetersIntoACollector() throws Exception {
        LabPrerequisites.requireOtelCollector();
        int port = KafkaBroker.freePort();
        Path directory = Files.createDirectories(LabPaths.work().resolve("otelcol-" + port));
        Path received = directory.resolve("received.jsonl");
        Path config = directory.resolve("otelcol.yaml");
        int prometheusPort = KafkaBroker.freePort();
        Files.writeString(config, collectorConfig(port, prometheusPort, received));
        String endpoint = "http://127.0.0.1:" + port + "/v1/metrics";
        try (LabProcess collector = LabProcess.start(
                        "otelcol", List.of(LabPaths.otelCollector().toString(), "--config=" + config));
                KafkaBroker broker = KafkaBroker.onLoopback()
                        .shortLivedJvm()
                        .agent("interval=1s,otlp.enabled=true,otlp.step.ms=1000,otlp.endpoint=" + endpoint
                                + ",otlp.resource.attributes=deployment.environment=lab;host.name=broker-1")
                        .start()) {
            LabTopics.create(broker, "otlp", 1);
            Map<String, Object> consumerConfig = new HashMap<>(Map.of(
                    "bootstrap.servers", broker.bootstrapServers(),
                    "client.id", "otlp-consumer",
                    "group.id", "otlp",
                    "metric.reporters", "io.tcpsight.kafka.TcpsightMetricsReporter",
                    "tcpsight.sample.interval.ms", "1000",
                    "tcpsight.otlp.enabled", "true",
                    "tcpsight.otlp.step.ms", "1000",
                    "tcpsight.otlp.endpoint", endpoint));
            try (KafkaConsumer<String, String> consumer =
                    new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of("otlp"));
                Map<String, Map<String, JsonNode>> byService = LabAwait.await(
                                "RTT histograms, findings gauges and worst-connections tables from both services at the collector")
                        .atMost(Duration.ofSeconds(45))
                        .every(Duration.ZERO)
                        .explainedBy(() -> "collector output:\n" + collector.output())
                        .until(() -> {
                            consumer.poll(Duration.ofMillis(250));
                            Map<String, Map<String, JsonNode>> metrics = metricsByService(received);
                            // a push can fall between a round's histograms and its table, so all three are awaited
                            boolean both = List.of("tcpsight-agent", "tcpsight-reporter").stream()
                                    .allMatch(service -> metrics.containsKey(service)
                                            && histogramPoints(
                                                            metrics.get(service).get("tcpsight.connection.rtt"))
                                                    > 0
                                            && metrics.get(service).containsKey("tcpsight.findings")
                                            && metrics.get(service).containsKey("tcpsight.top.connection.rtt"));
                            return both ? metrics : null;
                        });
                JsonNode agentRtt = byService.get("tcpsight-agent").get("tcpsight.connection.rtt");
                JsonNode point = agentRtt.path("histogram").path("dataPoints").get(0);
                List<Double> bounds = new ArrayList<>();
                point.path("explicitBounds").forEach(bound -> bounds.add(bound.asDouble()));
                System.out.println("the collector received from the agent: "
                        + byService.get("tcpsight-agent").keySet()
                        + "; RTT unit " + agentRtt.path("unit").asText() + ", bounds " + bounds
                        + "; from the reporter: "
                        + byService.get("tcpsight-reporter").keySet());
                assertEquals(27, bounds.size(), "tcpsight's 27 RTT bounds: " + bounds);
                assertEquals(0.00005, bounds.get(0), 1e-9, "the first bound, 50 µs in seconds");
                assertEquals(bounds.size() + 1, point.path("bucketCounts").size());
                // Micrometer names the base unit in words
                assertEquals("seconds", agentRtt.path("unit").asText());
                Map<String, String> attributes = attributes(point.path("attributes"));
                assertEquals("kafka", attributes.get("messaging.system"), attributes.toString());
                assertTrue(attributes.containsKey("role") && attributes.containsKey("listener"), attributes.toString());
                JsonNode findings = byService.get("tcpsight-agent").get("tcpsight.findings");
                assertTrue(findings.has("gauge"), "findings are a gauge: " + findings);
                boolean byRule = false;
                for (JsonNode finding : findings.path("gauge").path("dataPoints")) {
                    Map<String, String> labels = attributes(finding.path("attributes"));
                    byRule |= "small-receive-buffer".equals(labels.get("rule")) && labels.containsKey("severity");
                }
                assertTrue(byRule, "a findings point per rule and severity: " + findings);
                JsonNode clientTable = byService.get("tcpsight-reporter").get("tcpsight.top.connection.rtt");
                assertTrue(clientTable != null, "the reporter's worst-connections table: " + byService);
                Map<String, String> row = attributes(
                        clientTable.path("gauge").path("dataPoints").get(0).path("attributes"));
                assertTrue(
                        // its value is the client.id where the owner is certain, else unknown
                        row.containsKey("messaging.client.id") && !row.containsKey("client.id"),
                        "client.id pushed as messaging.client.id: " + row);
                // The consumer keeps polling while Prometheus scrapes: a ratio of rates needs its connections busy
                // between two scrapes, and a consumer left idle once the push arrived gave 0/0 to every ratio
                // panel when the first scrapes came late (the host busy beside it, 2026-11-28).
                AtomicBoolean polling = new AtomicBoolean(true);
                Thread poller = new Thread(() -> {
                    while (polling.get()) {
                        consumer.poll(Duration.ofMillis(250));
                    }
                });
                poller.start();
                // the documented collector turns the push into the series the client dashboard reads
                try (PrometheusServer prometheus = PrometheusServer.scrapingCollector(
                        Map.of("otel-collector", "http://127.0.0.1:" + prometheusPort + "/metrics"))) {
                    DashboardQueries.assertEveryQueryAnswers(prometheus, "tcpsight-reporter", "kafka-clients.json");
                    List<PrometheusServer.Sample> rows =
                            prometheus.query("tcpsight_top_connection_rtt_seconds{job=\"tcpsight-reporter\"}");
                    assertTrue(
                            rows.stream().anyMatch(sample -> "otlp-consumer"
                                    .equals(sample.labels().get("client_id"))),
                            "the worst-connections table names the consumer in client_id: " + rows);
                } finally {
                    polling.set(false);
                    poller.join();
                }
            }
        }
    }

    /**
     * docs/dashboards/clients-otel-collector.yaml on this test's ports, with a file exporter beside
     * it in a pipeline of its own: what the collector received, read back as it arrived.
     */
    private static String collectorConfig(int otlpPort, int prometheusPort, Path received) throws Exception {
        ObjectNode config = (ObjectNode) YAML.readTree(DOCUMENTED_COLLECTOR.toFile());
        ((ObjectNode) config.path("receivers").path("otlp").path("protocols").path("http"))
                .put("endpoint", "127.0.0.1:" + otlpPort);
        ((ObjectNode) config.path("exporters").path("prometheus/tcpsight"))
                .put("endpoint", "127.0.0.1:" + prometheusPort);
        ((ObjectNode) config.path("exporters"))
                .putObject("file")
                .put("path", received.toString())
                .put("flush_interval", "100ms");
        ObjectNode service = (ObjectNode) config.path("service");
        ObjectNode telemetry = service.putObject("telemetry");
        telemetry.putObject("logs").put("level", "warn");
        telemetry.putObject("metrics").put("level", "none");
        ObjectNode asReceived = ((ObjectNode) service.path("pipelines")).putObject("metrics");
        asReceived.putArray("receivers").add("otlp");
        asReceived.putArray("exporters").add("file");
        return YAML.writeValueAsString(config);
    }

    /** Metric name to its last received form, by the resource's service.name, over every line of the file. */
    private static Map<String, Map<String, JsonNode>> metricsByService(Path received) throws Exception {
        Map<String, Map<String, JsonNode>> services = new TreeMap<>();
        if (!Files.exists(received)) {
            return services;
        }
        for (String line : Files.readAllLines(received)) {
            if (line.isBlank()) {
                continue;
            }
            for (JsonNode resource : JSON.readTree(line).path("resourceMetrics")) {
                Map<String, String> resourceAttributes =
                        attributes(resource.path("resource").path("attributes"));
                Map<String, JsonNode> metrics =
                        services.computeIfAbsent(resourceAttributes.get("service.name"), name -> new TreeMap<>());
                for (JsonNode scope : resource.path("scopeMetrics")) {
                    for (JsonNode metric : scope.path("metrics")) {
                        metrics.put(metric.path("name").asText(), metric);
                    }
                }
            }
        }
        return services;
    }

    private static int histogramPoints(JsonNode metric) {
        return metric == null ? 0 : metric.path("histogram").path("dataPoints").size();
    }

    private static Map<String, String> attributes(JsonNode attributes) {
        Map<String, String> map = new TreeMap<>();
        for (JsonNode attribute : attributes) {
            JsonNode value = attribute.path("value");
            map.put(
                    attribute.path("key").asText(),
                    value.has("stringValue") ? value.path("stringValue").asText() : value.toString());
        }
        return map;
    }
}
