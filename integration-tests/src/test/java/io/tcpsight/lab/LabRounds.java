package io.tcpsight.lab;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Waits for rounds of tcpsight's own to pass, as its metrics count them
 * ({@code tcpsight_round_duration_seconds_count}), instead of sleeping for so many intervals: on a
 * busy host a round can start late, and a sleep would then check before the rounds it meant.
 */
public final class LabRounds {
    private static final Pattern COUNT =
            Pattern.compile("(?m)^tcpsight_round_duration_seconds_count(?:\\{[^}]*\\})? ([0-9.eE+-]+)$");

    private LabRounds() {}

    /** Returns once {@code rounds} rounds have ended after this call began, read from a scrape of {@code metrics}. */
    public static void awaitMore(String whose, Callable<String> metrics, int rounds) throws Exception {
        int from = count(metrics.call());
        LabAwait.await(rounds + " more rounds of " + whose)
                .atMost(Duration.ofSeconds(60))
                .untilTrue(() -> count(metrics.call()) >= from + rounds);
    }

    /** The rounds a scrape of tcpsight's metrics counts so far. */
    public static int count(String scrape) {
        Matcher matcher = COUNT.matcher(scrape);
        if (!matcher.find()) {
            throw new AssertionError("no tcpsight_round_duration_seconds_count in the scrape:\n" + scrape);
        }
        return (int) Double.parseDouble(matcher.group(1));
    }
}
