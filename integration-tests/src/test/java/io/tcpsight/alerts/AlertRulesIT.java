package io.tcpsight.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.sun.net.httpserver.HttpServer;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.lab.DashboardQueries;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.PrometheusServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The alerting rules in docs/alerts, checked without a cluster: promtool accepts them and passes
 * their unit tests, every finding rule that can be warn or critical has its alert with a firing
 * and a silent test, every runbook link names a page that exists, and the PrometheusRule for
 * Kubernetes carries the same groups. The fleet's recording rules each have a promtool test and a
 * bounded label set, and the fleet dashboard reads only them, every query answered by a real
 * Prometheus that evaluates them over two targets. The lab's AgentLabIT loads the rules into a
 * real Prometheus scraping an agent.
 */
// runs nothing across the delay line and shares the host (HostCpu); in the lab lane's shared part, which
// without it ends before the other lane (LaneOrder's times: 620 s against 636)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class AlertRulesIT {
    static final Path ALERTS = Path.of("..", "docs", "alerts");
    static final Path RULES = ALERTS.resolve("tcpsight-alerts.yml");
    private static final Path TESTS = ALERTS.resolve("tcpsight-alerts.test.yml");
    private static final Path FLEET_TESTS = ALERTS.resolve("tcpsight-fleet.test.yml");
    private static final String FLEET_DASHBOARD = "fleet.json";
    /** The labels a fleet-wide series may keep: none per connection (client_port, peer) or per target. */
    private static final Set<String> FLEET_LABELS = Set.of("rule", "severity", "client_id", "role");
    /** level:metric:operations, the level naming the labels kept (joined by "_"), the metric a tcpsight series. */
    private static final Pattern RECORDED_NAME = Pattern.compile("\\A([a-z_]*):(tcpsight_[a-z_]+):([a-z_]+)\\z");
    /** The outermost aggregation of a recording rule: its operator and the labels it keeps. */
    private static final Pattern OUTER_AGGREGATION = Pattern.compile("\\A(\\w+)(?: by \\(([^)]*)\\))? ?\\(");

    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_]\\w*)=\"");
    private static final Pattern SERIES_NAME = Pattern.compile("[a-zA-Z_:][\\w:]*");
    private static final Path PROMETHEUS_RULE = Path.of("..", "docs", "kubernetes", "prometheusrule.yaml");
    private static final Path RUNBOOKS = Path.of("..", "docs", "runbooks");
    private static final String RUNBOOK_BASE = "https://github.com/tcpsight/tcpsight/blob/main/docs/runbooks/";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** Rules that only ever say info: they inform, and page nobody. */
    private static final Set<RuleId> INFO_ONLY =
            Set.of(RuleId.UNPLACED_SOCKETS, RuleId.REQUEST_LATENCY_BEYOND_PATH, RuleId.HOST_CPU_BUSY);

    @Test
    void promtoolAcceptsTheRulesAndPassesTheirUnitTests() throws Exception {
        LabPrerequisites.requireCommand("promtool", "promtool (apt-get install prometheus)");
        String check = promtool("check", "rules", RULES.getFileName().toString());
        assertTrue(check.contains("SUCCESS"), check);
        String tests = promtool(
                "test",
                "rules",
                TESTS.getFileName().toString(),
                FLEET_TESTS.getFileName().toString());
        System.out.println("promtool test rules: " + tests.strip().replace('\n', ' '));
        assertTrue(tests.contains("SUCCESS") && !tests.contains("FAILED"), tests);
    }

    @Test
    void everyRecordingRuleIsNamedForWhatItKeepsBoundedAndTestedAcrossTargets() throws Exception {
        Map<String, JsonNode> recorded = recordingRules(YAML.readTree(RULES.toFile()));
        assertTrue(recorded.size() >= 5, "the fleet's recording rules: " + recorded.keySet());
        Map<String, List<JsonNode>> testsOf = new HashMap<>();
        for (JsonNode test : YAML.readTree(FLEET_TESTS.toFile()).path("tests")) {
            for (JsonNode expectation : test.path("promql_expr_test")) {
                Matcher name = SERIES_NAME.matcher(expectation.path("expr").asText());
                if (name.lookingAt()) {
                    testsOf.computeIfAbsent(name.group(), n -> new ArrayList<>())
                            .add(expectation);
                }
            }
        }
        List<String> problems = new ArrayList<>();
        recorded.forEach((name, rule) -> {
            String expression = rule.path("expr").asText();
            Matcher parts = RECORDED_NAME.matcher(name);
            Matcher outer = OUTER_AGGREGATION.matcher(expression);
            if (!parts.matches()) {
                problems.add(name + ": not level:tcpsight_metric:operations");
            } else if (!expression.contains(parts.group(2))) {
                problems.add(name + ": does not read " + parts.group(2));
            } else if (!outer.lookingAt()) {
                problems.add(name + ": no aggregation across targets: " + expression);
            } else {
                List<String> kept = outer.group(2) == null
                        ? List.of()
                        : List.of(outer.group(2).split(",\\s*"));
                if (!String.join("_", kept).equals(parts.group(1))) {
                    problems.add(name + ": keeps " + kept + ", not what its level says");
                }
                if (!FLEET_LABELS.containsAll(kept)) {
                    problems.add(name + ": keeps " + kept + ", beyond " + FLEET_LABELS);
                }
            }
            if (expression.contains("client_port") || expression.contains("peer")) {
                problems.add(name + ": reads a connection's own labels: " + expression);
            }
            List<JsonNode> tests = testsOf.getOrDefault(name, List.of());
            if (tests.stream().noneMatch(test -> !test.path("exp_samples").isEmpty())) {
                problems.add(name + ": no promtool test in " + FLEET_TESTS.getFileName() + " expects a value of it");
            }
            for (JsonNode test : tests) {
                for (JsonNode sample : test.path("exp_samples")) {
                    Matcher label = LABEL.matcher(sample.path("labels").asText());
                    while (label.find()) {
                        if (!FLEET_LABELS.contains(label.group(1))) {
                            problems.add(name + ": a test expects the label " + label.group(1));
                        }
                    }
                }
            }
        });
        assertEquals(List.of(), problems);
    }

    @Test
    void theFleetDashboardReadsOnlyTheRecordingRules() throws Exception {
        Set<String> recorded = recordingRules(YAML.readTree(RULES.toFile())).keySet();
        List<String> problems = new ArrayList<>();
        Set<String> read = new TreeSet<>();
        for (String expression : DashboardQueries.expressions(FLEET_DASHBOARD)) {
            Matcher name = SERIES_NAME.matcher(expression);
            while (name.find()) {
                String found = name.group();
                if (found.startsWith("tcpsight_") || found.contains(":")) {
                    read.add(found);
                    if (!recorded.contains(found)) {
                        problems.add(FLEET_DASHBOARD + " reads " + found + ", no recording rule (" + expression + ")");
                    }
                }
            }
        }
        assertEquals(List.of(), problems);
        assertEquals(recorded, read, FLEET_DASHBOARD + " shows every recording rule");
    }

    /**
     * A real Prometheus scraping a broker's and a Connect worker's series, with the rule file
     * loaded: every query of the fleet dashboard answers with a number, and the rankings are
     * the fleet's, not a target's.
     */
    @Test
    void theFleetDashboardAnswersFromTheRecordingRulesInARealPrometheus() throws Exception {
        String broker = exposition(
                gauge("tcpsight_connections", 40),
                finding("broker", "PLAINTEXT", "small-receive-buffer", "warn", 2),
                finding("broker", "SSL", "small-receive-buffer", "warn", 1),
                finding("broker", "PLAINTEXT", "retransmissions", "critical", 1),
                worst("broker", "PLAINTEXT", "orders-consumer", 51234, 2),
                worst("broker", "SSL", "orders-consumer", 51240, 1),
                worst("broker", "PLAINTEXT", "quiet-producer", 51300, 0));
        String worker = exposition(
                gauge("tcpsight_connections", 12),
                finding("client", "unknown", "small-receive-buffer", "warn", 1),
                worst("client", "unknown", "orders-consumer", 33000, 1));
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        serve(server, "/broker/metrics", broker);
        serve(server, "/worker/metrics", worker);
        server.start();
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        try (PrometheusServer prometheus = PrometheusServer.scraping(
                Map.of("tcpsight-agent", base + "/broker/metrics", "tcpsight-connect", base + "/worker/metrics"),
                List.of(RULES))) {
            DashboardQueries.assertEveryQueryAnswers(prometheus, "tcpsight-agent", FLEET_DASHBOARD);
            // here every panel has data, including those a healthy fleet leaves empty
            for (DashboardQueries.Query query : DashboardQueries.queries(FLEET_DASHBOARD)) {
                assertFalse(prometheus.query(query.expression()).isEmpty(), query + " answered nothing");
            }
            // both targets are one address here, as a broker and a worker on one host whose instance names the
            // host: they are two by their jobs
            assertEquals(2.0, value(prometheus, ":tcpsight_connections:count_instances"));
            assertEquals(
                    2.0,
                    value(
                            prometheus,
                            "rule_severity:tcpsight_connection_findings:count_instances{rule=\"small-receive-buffer\","
                                    + "severity=\"warn\"}"));
            assertEquals(
                    4.0,
                    value(
                            prometheus,
                            "rule_severity:tcpsight_connection_findings:sum{rule=\"small-receive-buffer\","
                                    + "severity=\"warn\"}"));
            assertEquals(
                    2.0,
                    value(
                            prometheus,
                            "client_id:tcpsight_top_connection_findings:count_instances{client_id=\"orders-consumer\"}"));
            assertEquals(
                    3.0,
                    value(
                            prometheus,
                            "client_id:tcpsight_top_connection_findings:count{client_id=\"orders-consumer\"}"));
            assertEquals(
                    2.0,
                    value(prometheus, "client_id:tcpsight_top_connection_findings:max{client_id=\"orders-consumer\"}"));
            assertEquals(
                    List.of(),
                    prometheus.query(
                            "client_id:tcpsight_top_connection_findings:count_instances{client_id=\"quiet-producer\"}"),
                    "a client without findings is not ranked");
        } finally {
            server.stop(0);
        }
    }

    /** A scrape as the agent serves it: the series, one a line. */
    private static String exposition(String... series) {
        return String.join("\n", series) + "\n";
    }

    private static String gauge(String name, double value, String... labels) {
        List<String> pairs = new ArrayList<>();
        for (int i = 0; i < labels.length; i += 2) {
            pairs.add(labels[i] + "=\"" + labels[i + 1] + "\"");
        }
        return name + (pairs.isEmpty() ? "" : "{" + String.join(",", pairs) + "}") + " " + value;
    }

    private static String finding(String role, String listener, String rule, String severity, int count) {
        return gauge(
                "tcpsight_connection_findings",
                count,
                "listener",
                listener,
                "node_id",
                "1",
                "role",
                role,
                "rule",
                rule,
                "severity",
                severity);
    }

    private static String worst(String role, String listener, String clientId, int clientPort, int findings) {
        return gauge(
                "tcpsight_top_connection_findings",
                findings,
                "client_id",
                clientId,
                "client_port",
                Integer.toString(clientPort),
                "listener",
                listener,
                "node_id",
                "1",
                "role",
                role);
    }

    private static void serve(HttpServer server, String path, String exposition) {
        byte[] body = exposition.getBytes(StandardCharsets.UTF_8);
        server.createContext(path, exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
    }

    /** The one value a query answers. */
    private static double value(PrometheusServer prometheus, String promql) throws Exception {
        List<PrometheusServer.Sample> samples = prometheus.query(promql);
        assertEquals(1, samples.size(), promql + " -> " + samples);
        return samples.get(0).value();
    }

    @Test
    void everyRuleThatCanWarnHasAnAlertWithAFiringAndASilentTest() throws Exception {
        Map<String, JsonNode> alerts = alerts(YAML.readTree(RULES.toFile()));
        Set<String> ruled = new TreeSet<>();
        alerts.values()
                .forEach(alert -> ruled.add(alert.path("labels").path("rule").asText("")));
        Set<String> missing = new TreeSet<>();
        for (RuleId rule : RuleId.values()) {
            if (!INFO_ONLY.contains(rule) && !ruled.contains(rule.id())) {
                missing.add(rule.id());
            }
        }
        assertEquals(Set.of(), missing, "finding rules without an alert");
        Set<String> firing = new HashSet<>();
        Set<String> silent = new HashSet<>();
        for (JsonNode test : YAML.readTree(TESTS.toFile()).path("tests")) {
            for (JsonNode expectation : test.path("alert_rule_test")) {
                String name = expectation.path("alertname").asText();
                (expectation.path("exp_alerts").isEmpty() ? silent : firing).add(name);
            }
        }
        for (String name : alerts.keySet()) {
            assertTrue(firing.contains(name), name + " has no test where it fires");
            assertTrue(silent.contains(name), name + " has no test where it stays silent");
        }
    }

    @Test
    void everyAlertRoutesBySeverityAndLinksARunbookThatExists() throws Exception {
        List<String> problems = new ArrayList<>();
        alerts(YAML.readTree(RULES.toFile())).forEach((name, alert) -> {
            String expression = alert.path("expr").asText();
            // tcpsight_connection_findings has rows only at warn and critical; the alert relabels warn as warning
            boolean severityFromSeries = expression.contains("tcpsight_connection_findings{")
                    && expression.contains("\"severity\", \"warning\", \"severity\", \"warn\"");
            String severity = alert.path("labels").path("severity").asText("");
            if (!severityFromSeries && !Set.of("warning", "critical").contains(severity)) {
                problems.add(name + ": no severity label");
            }
            String runbook = alert.path("annotations").path("runbook_url").asText("");
            if (!runbook.startsWith(RUNBOOK_BASE)) {
                problems.add(name + ": runbook_url " + runbook);
            } else if (!Files.isRegularFile(RUNBOOKS.resolve(runbook.substring(RUNBOOK_BASE.length())))) {
                problems.add(name + ": no page docs/runbooks/" + runbook.substring(RUNBOOK_BASE.length()));
            }
            for (String annotation : List.of("summary", "description")) {
                if (alert.path("annotations").path(annotation).asText("").isBlank()) {
                    problems.add(name + ": no " + annotation);
                }
            }
        });
        assertEquals(List.of(), problems);
    }

    @Test
    void thePrometheusRuleCarriesTheSameGroups() throws Exception {
        JsonNode resource = YAML.readTree(PROMETHEUS_RULE.toFile());
        assertEquals("monitoring.coreos.com/v1", resource.path("apiVersion").asText());
        assertEquals("PrometheusRule", resource.path("kind").asText());
        assertEquals(
                YAML.readTree(RULES.toFile()).path("groups"),
                resource.path("spec").path("groups"),
                "docs/kubernetes/prometheusrule.yaml's spec.groups differ from docs/alerts/tcpsight-alerts.yml");
    }

    /** Every alerting rule of the file, by alert name. */
    static Map<String, JsonNode> alerts(JsonNode rules) {
        Map<String, JsonNode> alerts = new HashMap<>();
        for (JsonNode group : rules.path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                if (rule.has("alert")) {
                    assertFalse(alerts.containsKey(rule.path("alert").asText()), "two alerts named " + rule);
                    alerts.put(rule.path("alert").asText(), rule);
                }
            }
        }
        return alerts;
    }

    /** Every recording rule of the file, by the name it records. */
    static Map<String, JsonNode> recordingRules(JsonNode rules) {
        Map<String, JsonNode> recorded = new HashMap<>();
        for (JsonNode group : rules.path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                if (rule.has("record")) {
                    assertFalse(recorded.containsKey(rule.path("record").asText()), "two rules record " + rule);
                    recorded.put(rule.path("record").asText(), rule);
                }
            }
        }
        return recorded;
    }

    private static String promtool(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("promtool"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command)
                .directory(ALERTS.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "promtool did not finish: " + output);
        assertEquals(0, process.exitValue(), String.join(" ", command) + ":\n" + output);
        return output;
    }
}
