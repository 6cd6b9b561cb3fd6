package io.tcpsight.lab;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Grafana dashboards in docs/dashboards checked two ways: against a /metrics scrape (every
 * tcpsight series a query names exists, with every label the query groups by), and against a real
 * Prometheus server (every query evaluates, and every data panel returns a value).
 */
public final class DashboardQueries {
    private static final Path DASHBOARDS = Path.of("..", "docs", "dashboards");
    private static final Pattern METRIC = Pattern.compile("\\b(tcpsight_[a-z_]+)");
    private static final Pattern GROUP_BY = Pattern.compile("\\bby \\(([^)]*)\\)");
    private static final Pattern SERIES =
            Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)\\})? ", Pattern.MULTILINE);
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");
    /** Labels Prometheus adds at scrape time, or that histograms carry by definition. */
    private static final Set<String> SCRAPE_LABELS = Set.of("le", "job", "instance");

    private DashboardQueries() {}

    /** Every PromQL expression of a dashboard file. */
    public static List<String> expressions(String dashboard) throws IOException {
        JsonNode root =
                new ObjectMapper().readTree(DASHBOARDS.resolve(dashboard).toFile());
        List<String> expressions = new ArrayList<>();
        for (JsonNode panel : root.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                expressions.add(target.path("expr").asText());
            }
        }
        for (JsonNode variable : root.path("templating").path("list")) {
            expressions.add(variable.path("query").asText());
        }
        return expressions;
    }

    /** A panel's query, with the panel it feeds. */
    public record Query(String dashboard, String panel, boolean mayBeEmpty, String expression) {}

    /** Every panel query of a dashboard file; "(may be empty:" in a panel's description says why it may be. */
    public static List<Query> queries(String dashboard) throws IOException {
        JsonNode root =
                new ObjectMapper().readTree(DASHBOARDS.resolve(dashboard).toFile());
        List<Query> queries = new ArrayList<>();
        for (JsonNode panel : root.path("panels")) {
            boolean mayBeEmpty = panel.path("description").asText().contains("(may be empty:");
            for (JsonNode target : panel.path("targets")) {
                queries.add(new Query(
                        dashboard,
                        panel.path("title").asText(),
                        mayBeEmpty,
                        target.path("expr").asText()));
            }
        }
        return queries;
    }

    /**
     * Every panel query of the dashboards, with $job set to {@code job}, evaluated by a real
     * Prometheus: no query errs, and every data panel answers with at least one number.
     */
    public static void assertEveryQueryAnswers(PrometheusServer prometheus, String job, String... dashboards) {
        // A rate needs two scrapes around a sampling round; a fresh Prometheus may not have them yet.
        List<String> problems = new ArrayList<>();
        int answered = LabAwait.await("every query of " + List.of(dashboards) + " answered by Prometheus")
                .atMost(Duration.ofSeconds(45))
                .every(Duration.ofSeconds(2))
                .explainedBy(() -> problems.size() + " dashboard queries failed:\n" + String.join("\n", problems))
                .until(() -> {
                    problems.clear();
                    int numbers = 0;
                    for (String dashboard : dashboards) {
                        for (Query query : queries(dashboard)) {
                            String problem = problem(
                                    prometheus, query, query.expression().replace("$job", job));
                            if (problem == null) {
                                numbers++;
                            } else if (!problem.isEmpty()) {
                                problems.add(problem);
                            }
                        }
                    }
                    return problems.isEmpty() ? numbers : null;
                });
        System.out.println("dashboards " + List.of(dashboards) + " on job " + job + ": " + answered
                + " queries answered with numbers");
    }

    /** null when the query answered with a number, "" when it may be empty and was, else what went wrong. */
    private static String problem(PrometheusServer prometheus, Query query, String promql) throws Exception {
        JsonNode answer = prometheus.answer(promql);
        if (!answer.path("status").asText().equals("success")) {
            return query + " fails: " + answer.path("error").asText();
        }
        for (JsonNode result : answer.path("data").path("result")) {
            double value = Double.parseDouble(result.path("value").path(1).asText());
            if (!Double.isNaN(value) && !Double.isInfinite(value)) {
                return null;
            }
        }
        return query.mayBeEmpty() ? "" : query + " answers no number: " + answer.path("data");
    }

    public static void assertAllExist(String scrape, String... dashboards) throws IOException {
        Map<String, Set<String>> labelsByMetric = new HashMap<>();
        Matcher series = SERIES.matcher(scrape);
        while (series.find()) {
            Set<String> labels = labelsByMetric.computeIfAbsent(series.group(1), name -> new HashSet<>());
            if (series.group(3) != null) {
                Matcher label = LABEL.matcher(series.group(3));
                while (label.find()) {
                    labels.add(label.group(1));
                }
            }
        }
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (String dashboard : dashboards) {
            for (String expression : expressions(dashboard)) {
                Matcher metric = METRIC.matcher(expression);
                while (metric.find()) {
                    checked++;
                    Set<String> labels = labelsByMetric.get(metric.group(1));
                    if (labels == null) {
                        problems.add(dashboard + ": " + metric.group(1) + " is not in the scrape (query: " + expression
                                + ")");
                        continue;
                    }
                    Matcher groupBy = GROUP_BY.matcher(expression);
                    while (groupBy.find()) {
                        for (String label : groupBy.group(1).split(",")) {
                            String name = label.strip();
                            if (!SCRAPE_LABELS.contains(name) && !labels.contains(name)) {
                                problems.add(dashboard + ": " + metric.group(1) + " has no label " + name + " (query: "
                                        + expression + ")");
                            }
                        }
                    }
                }
            }
        }
        assertTrue(checked > 0, "no tcpsight metric in " + List.of(dashboards));
        assertTrue(problems.isEmpty(), String.join("\n", problems) + "\n--- scrape:\n" + scrape);
        System.out.println(
                "dashboards " + List.of(dashboards) + ": all " + checked + " metric references found in the scrape");
    }
}
