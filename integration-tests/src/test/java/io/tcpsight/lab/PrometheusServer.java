package io.tcpsight.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server (Debian's prometheus package) on loopback, scraping tcpsight endpoints
 * every second, and answering PromQL through its HTTP API as Grafana would ask it.
 */
public final class PrometheusServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LabProcess process;
    private final String url;

    private PrometheusServer(LabProcess process, String url) {
        this.process = process;
        this.url = url;
    }

    /** @param targets job name to the endpoint's URL, e.g. tcpsight-agent -> http://127.0.0.1:9464/metrics */
    public static PrometheusServer scraping(Map<String, String> targets) throws IOException, InterruptedException {
        return scraping(targets, List.of());
    }

    /** The same, evaluating these rule files every second as well. */
    public static PrometheusServer scraping(Map<String, String> targets, List<Path> ruleFiles)
            throws IOException, InterruptedException {
        return scraping(targets, ruleFiles, false);
    }

    /**
     * Scraping a collector that exports what many services pushed: with {@code honor_labels}, each
     * series keeps the job its service set, as the docs tell a user to configure it.
     */
    public static PrometheusServer scrapingCollector(Map<String, String> targets)
            throws IOException, InterruptedException {
        return scraping(targets, List.of(), true);
    }

    private static PrometheusServer scraping(Map<String, String> targets, List<Path> ruleFiles, boolean honorLabels)
            throws IOException, InterruptedException {
        LabPrerequisites.requireCommand("prometheus", "a real Prometheus server (apt-get install prometheus)");
        String name = "prometheus-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        Path directory = Files.createDirectories(LabPaths.work().resolve(name));
        Path config = directory.resolve("prometheus.yml");
        StringBuilder yaml = new StringBuilder(config(targets, honorLabels));
        if (!ruleFiles.isEmpty()) {
            yaml.append("rule_files:\n");
            for (Path rules : ruleFiles) {
                yaml.append("  - '").append(rules.toAbsolutePath().normalize()).append("'\n");
            }
        }
        Files.writeString(config, yaml, StandardCharsets.UTF_8);
        int port = KafkaBroker.freePort();
        LabProcess process = LabProcess.start(
                name,
                List.of(
                        "prometheus",
                        "--config.file=" + config,
                        "--storage.tsdb.path=" + directory.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port,
                        "--log.level=warn"));
        PrometheusServer server = new PrometheusServer(process, "http://127.0.0.1:" + port);
        try {
            LabAwait.await("Prometheus ready and every target scraped at least three times")
                    .atMost(Duration.ofSeconds(60))
                    .unless(() -> !process.process().isAlive())
                    .explainedBy(() -> "prometheus output:\n" + process.output())
                    .untilTrue(() -> server.allTargetsUp(targets.size()));
        } catch (AssertionError | RuntimeException failure) {
            process.close();
            throw failure;
        }
        return server;
    }

    private static String config(Map<String, String> targets, boolean honorLabels) {
        StringBuilder yaml = new StringBuilder("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n")
                .append("scrape_configs:\n");
        targets.forEach((job, endpoint) -> {
            URI uri = URI.create(endpoint);
            yaml.append("  - job_name: ")
                    .append(job)
                    .append("\n    metrics_path: ")
                    .append(uri.getPath())
                    .append(honorLabels ? "\n    honor_labels: true" : "")
                    .append("\n    static_configs:\n      - targets: ['")
                    .append(uri.getHost())
                    .append(':')
                    .append(uri.getPort())
                    .append("']\n");
        });
        return yaml.toString();
    }

    private boolean allTargetsUp(int expected) throws IOException, InterruptedException {
        JsonNode answer;
        try {
            answer = get("/api/v1/query?query=" + encode("count_over_time(up[1m]) >= 3 and up == 1"));
        } catch (IOException notListeningYet) {
            return false;
        }
        return answer.path("data").path("result").size() == expected;
    }

    /** An instant query; fails the test when Prometheus reports an error. */
    public List<Sample> query(String promql) throws IOException, InterruptedException {
        JsonNode answer = get("/api/v1/query?query=" + encode(promql));
        assertEquals("success", answer.path("status").asText(), promql + " -> " + answer);
        List<Sample> samples = new ArrayList<>();
        for (JsonNode result : answer.path("data").path("result")) {
            Map<String, String> labels = new LinkedHashMap<>();
            result.path("metric")
                    .fields()
                    .forEachRemaining(
                            label -> labels.put(label.getKey(), label.getValue().asText()));
            samples.add(new Sample(
                    labels, Double.parseDouble(result.path("value").path(1).asText())));
        }
        return samples;
    }

    /** The alerts pending or firing now (Prometheus' ALERTS series), as their labels. */
    public List<Map<String, String>> alerts() throws IOException, InterruptedException {
        List<Map<String, String>> alerts = new ArrayList<>();
        query("ALERTS").forEach(sample -> alerts.add(sample.labels()));
        return alerts;
    }

    /** The raw answer to a query, errors included, for checks that report every failing query at once. */
    public JsonNode answer(String promql) throws IOException, InterruptedException {
        return get("/api/v1/query?query=" + encode(promql));
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        return JSON.readTree(KafkaBroker.httpGet(url + path));
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    /** Lints an exposition with promtool check metrics; returns its complaints, empty when clean. */
    public static String lint(String scrape) throws IOException, InterruptedException {
        LabPrerequisites.requireCommand("promtool", "promtool (apt-get install prometheus)");
        Process promtool = new ProcessBuilder("promtool", "check", "metrics")
                .redirectErrorStream(true)
                .start();
        try (var in = promtool.getOutputStream()) {
            in.write(scrape.getBytes(StandardCharsets.UTF_8));
        }
        String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!promtool.waitFor(60, TimeUnit.SECONDS)) {
            promtool.destroyForcibly();
            return "promtool did not finish";
        }
        return promtool.exitValue() == 0 && output.isBlank() ? "" : "exit " + promtool.exitValue() + ": " + output;
    }

    @Override
    public void close() {
        process.close();
    }

    /** One element of an instant vector. */
    public record Sample(Map<String, String> labels, double value) {}
}
