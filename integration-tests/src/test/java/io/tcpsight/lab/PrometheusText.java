package io.tcpsight.lab;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
}
