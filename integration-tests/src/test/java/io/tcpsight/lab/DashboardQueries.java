package io.tcpsight.lab;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Grafana dashboards in docs/dashboards checked against a real /metrics scrape: every
 * tcpsight series a query names exists, and carries every label the query groups by.
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
