package io.tcpsight.lab;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a scrape of a tcpsight /metrics endpoint (Prometheus text). */
public final class PrometheusText {
    private PrometheusText() {}

    /** The value of the unlabelled sample {@code name}; fails the test when the scrape has none. */
    public static double sample(String scrape, String name) {
        Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(name) + " ([0-9.eE+-]+)$")
                .matcher(scrape);
        assertTrue(matcher.find(), name + " in " + scrape);
        return Double.parseDouble(matcher.group(1));
    }

    /**
     * The sum of every sample of {@code name} whose labels include all of {@code labels} (name="value");
     * 0 when none does, as a counter no connection has touched yet.
     */
    public static double sum(String scrape, String name, Map<String, String> labels) {
        Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{([^}]*)\\} ([0-9.eE+-]+|NaN)$")
                .matcher(scrape);
        double sum = 0;
        while (matcher.find()) {
            String found = matcher.group(1);
            boolean all = labels.entrySet().stream()
                    .allMatch(label -> found.contains(label.getKey() + "=\"" + label.getValue() + "\""));
            if (all && !matcher.group(2).equals("NaN")) {
                sum += Double.parseDouble(matcher.group(2));
            }
        }
        return sum;
    }
}
