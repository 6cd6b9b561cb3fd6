package io.tcpsight.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.tcpsight.internal.diagnose.RuleId;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.LabPrerequisites;
import java.io.IOException;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The alerting rules in docs/alerts, checked without a cluster: promtool accepts them and passes
 * their unit tests, every finding rule that can be warn or critical has its alert with a firing
 * and a silent test, every runbook link names a page that exists, and the PrometheusRule for
 * Kubernetes carries the same groups. The lab's AgentLabIT loads them into a real Prometheus.
 */
// runs nothing across the delay line: may run beside the lab classes (HostCpu)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class AlertRulesIT {
    static final Path ALERTS = Path.of("..", "docs", "alerts");
    static final Path RULES = ALERTS.resolve("tcpsight-alerts.yml");
    private static final Path TESTS = ALERTS.resolve("tcpsight-alerts.test.yml");
    private static final Path PROMETHEUS_RULE = Path.of("..", "docs", "kubernetes", "prometheusrule.yaml");
    private static final Path RUNBOOKS = Path.of("..", "docs", "runbooks");
    private static final String RUNBOOK_BASE = "https://github.com/tcpsight/tcpsight/blob/main/docs/runbooks/";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** Rules that only ever say info: they inform, and page nobody. */
    private static final Set<RuleId> INFO_ONLY = Set.of(RuleId.UNPLACED_SOCKETS, RuleId.REQUEST_LATENCY_BEYOND_PATH);

    @Test
    void promtoolAcceptsTheRulesAndPassesTheirUnitTests() throws Exception {
        LabPrerequisites.requireCommand("promtool", "promtool (apt-get install prometheus)");
        String check = promtool("check", "rules", RULES.getFileName().toString());
        assertTrue(check.contains("SUCCESS"), check);
        String tests = promtool("test", "rules", TESTS.getFileName().toString());
        System.out.println("promtool test rules: " + tests.strip().replace('\n', ' '));
        assertTrue(tests.contains("SUCCESS") && !tests.contains("FAILED"), tests);
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
