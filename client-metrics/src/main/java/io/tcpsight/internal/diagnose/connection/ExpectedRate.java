package io.tcpsight.internal.diagnose.connection;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.Role;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What a connection's flow should reach once every remedy named for it in one round is applied:
 * the least of the target rate (tcpsight.target.throughput.mbit, the line the settings are sized
 * for), what the application asks where its own pace is known, and each ceiling on the flow as it
 * stands after the remedies (a finding's limit as its remedy leaves it; a ceiling no finding names
 * as it is). Operators apply the advice once, in one restart, so every finding that names a limit
 * says this one rate, not what its own remedy alone would give. In the order the flow meets the
 * limits (the one that binds first first), {@link #steps()} also says the rate after each, which is
 * what the doctor lists. A pure function of the findings and facts: no clock, no I/O.
 */
public final class ExpectedRate {
    /**
     * One limit the flow meets, the findings that name it (and so their remedies; none for a ceiling
     * no remedy of the round lifts), and the rate once it and those before it are lifted.
     */
    public static final class Step {
        private final Limit limit;
        private final List<Finding> namedBy;
        private final double rateAfterBytesPerSecond;

        Step(Limit limit, List<Finding> namedBy, double rateAfterBytesPerSecond) {
            this.limit = limit;
            this.namedBy = Collections.unmodifiableList(namedBy);
            this.rateAfterBytesPerSecond = rateAfterBytesPerSecond;
        }

        /** The ceiling as the findings name it: the least they say it allows now, the most their remedies give. */
        public Limit limit() {
            return limit;
        }

        /** The findings whose remedies lift this limit; empty for a ceiling no remedy of the round lifts. */
        public List<Finding> namedBy() {
            return namedBy;
        }

        /** The rate once this limit and every one before it are lifted (their remedies applied). */
        public double rateAfterBytesPerSecond() {
            return rateAfterBytesPerSecond;
        }

        /** The most the flow moves past this limit once the round's remedies are applied. */
        double lifted() {
            return namedBy.isEmpty() ? limit.nowBytesPerSecond() : limit.afterBytesPerSecond();
        }
    }

    private final double afterAllBytesPerSecond;
    private final double nowBytesPerSecond;
    private final List<Step> steps;

    private ExpectedRate(double nowBytesPerSecond, double afterAllBytesPerSecond, List<Step> steps) {
        this.nowBytesPerSecond = nowBytesPerSecond;
        this.afterAllBytesPerSecond = afterAllBytesPerSecond;
        this.steps = Collections.unmodifiableList(steps);
    }

    /** The rate once every remedy named is applied: never above the target, nor above what the application asks. */
    public double afterAllBytesPerSecond() {
        return afterAllBytesPerSecond;
    }

    /** The most the flow moves with the settings in effect now: the first limit's ceiling, or the target. */
    public double nowBytesPerSecond() {
        return nowBytesPerSecond;
    }

    /** Every limit below the target (and below what the application asks), the one that binds first first. */
    public List<Step> steps() {
        return steps;
    }

    /**
     * The core: the target, what the application asks (empty where not known), the findings of one
     * connection in one round (those that name a limit count, their remedies applied) and the
     * ceilings on the flow that no finding names (they stand).
     */
    public static ExpectedRate of(
            double targetBytesPerSecond, OptionalDouble askedBytesPerSecond, List<Finding> round, List<Limit> unnamed) {
        if (!(targetBytesPerSecond > 0)) {
            throw new IllegalArgumentException("a target rate must be > 0, got " + targetBytesPerSecond);
        }
        double cap = Math.min(targetBytesPerSecond, askedBytesPerSecond.orElse(Double.POSITIVE_INFINITY));
        List<Step> met = new ArrayList<>(merged(round));
        for (Limit limit : unnamed) {
            met.add(new Step(limit, List.of(), 0));
        }
        // the order the flow meets them: the lowest ceiling binds first; of two alike, the one the round lifts least
        met.sort(Comparator.comparingDouble((Step step) -> step.limit.nowBytesPerSecond())
                .thenComparingDouble(Step::lifted));
        List<Step> steps = new ArrayList<>();
        double lifted = cap;
        for (int i = 0; i < met.size(); i++) {
            Step step = met.get(i);
            lifted = Math.min(lifted, step.lifted());
            if (step.limit.nowBytesPerSecond() >= cap) {
                continue; // never binds: the target or the application's pace comes first
            }
            // the next limit binds once this one is lifted, unless a lifted one still holds the flow lower
            double next = i + 1 < met.size() ? met.get(i + 1).limit.nowBytesPerSecond() : cap;
            steps.add(new Step(step.limit, step.namedBy, Math.min(lifted, Math.min(next, cap))));
        }
        double now = met.isEmpty() ? cap : Math.min(cap, met.get(0).limit.nowBytesPerSecond());
        return new ExpectedRate(now, lifted, steps);
    }

    /**
     * The round's limits, one per ceiling: findings that name the same ceiling (a window both too
     * small and clamped, or unscaled) each remove one cause of it, and all their remedies are
     * applied, so the ceiling moves as far as the one that lifts it most, and stands now where the
     * lowest of them says. A remedy that leaves no ceiling of its own ({@link Limit#UNBOUNDED}: window
     * scaling on again) hands the window to the buffers, so where another finding names how far the
     * buffer's remedy lifts it, that is as far as the window goes; unbounded only when none does.
     */
    private static List<Step> merged(List<Finding> round) {
        Map<String, List<Finding>> byCeiling = new LinkedHashMap<>();
        for (Finding finding : round) {
            finding.limit().ifPresent(limit -> byCeiling
                    .computeIfAbsent(limit.name(), name -> new ArrayList<>())
                    .add(finding));
        }
        List<Step> steps = new ArrayList<>();
        byCeiling.forEach((name, findings) -> {
            double now = Double.POSITIVE_INFINITY;
            double after = Limit.UNBOUNDED;
            boolean bounded = false;
            for (Finding finding : findings) {
                Limit limit = finding.limit().get();
                now = Math.min(now, limit.nowBytesPerSecond());
                if (limit.afterBytesPerSecond() != Limit.UNBOUNDED) {
                    after = bounded ? Math.max(after, limit.afterBytesPerSecond()) : limit.afterBytesPerSecond();
                    bounded = true;
                }
            }
            steps.add(new Step(new Limit(name, now, after), findings, 0));
        });
        return steps;
    }

    /**
     * The round's findings for one connection with the rate expected after all of them on each that
     * names a limit; the findings unchanged where none does. The ceilings no finding names come from
     * the facts (a fetcher's fetch size), and what the application asks from its traffic.
     */
    public static List<Finding> annotate(ConnectionFacts facts, List<Finding> round, TcpsightConfig config) {
        if (round.stream().noneMatch(finding -> finding.limit().isPresent())) {
            return round;
        }
        List<Limit> unnamed = facts.identity().bulkFlow().arrivesAt(Role.CLIENT)
                ? unnamedFetch(round, facts.kafka(), facts.rttMicros(), config)
                : List.of();
        return annotate(config.targetBytesPerSecond(), ProduceRules.askedBytesPerSecond(facts), round, unnamed);
    }

    /**
     * A consumer's fetch sizes as the ceiling no finding of {@code round} names, where none does: a
     * fetch that reaches 80% of the target is no finding, yet the flow reaches no more than it
     * allows. Empty where a finding names the fetch size, or the sizes or the RTT are not known.
     */
    public static List<Limit> unnamedFetch(
            List<Finding> round, KafkaSettings consumer, long rttMicros, TcpsightConfig config) {
        if (round.stream().anyMatch(finding -> finding.rule() == RuleId.FETCH_SIZE_BELOW_BDP)) {
            return List.of();
        }
        return fetchLimit(consumer, rttMicros, config).map(List::of).orElse(List.of());
    }

    /** The same with what the caller knows of the path: the application's pace and the ceilings no finding names. */
    public static List<Finding> annotate(
            double targetBytesPerSecond, OptionalDouble askedBytesPerSecond, List<Finding> round, List<Limit> unnamed) {
        if (round.stream().noneMatch(finding -> finding.limit().isPresent())) {
            return round;
        }
        double expected =
                of(targetBytesPerSecond, askedBytesPerSecond, round, unnamed).afterAllBytesPerSecond();
        List<Finding> annotated = new ArrayList<>(round.size());
        for (Finding finding : round) {
            annotated.add(finding.limit().isPresent() ? finding.withExpectedAfterAll(expected) : finding);
        }
        return annotated;
    }

    /**
     * A consumer's fetch sizes as a ceiling on its flow over a round trip of {@code rttMicros}:
     * {@link FetchSizeBelowBdp}'s model, one response a cycle. Empty where the sizes or the RTT are not known.
     */
    public static Optional<Limit> fetchLimit(KafkaSettings kafka, long rttMicros, TcpsightConfig config) {
        if (kafka.fetchMaxBytes().isEmpty() || kafka.maxPartitionFetchBytes().isEmpty() || rttMicros <= 0) {
            return Optional.empty();
        }
        long perFetch = FetchSizeBelowBdp.bytesPerFetch(kafka);
        return Optional.of(Limit.standing(
                Limit.FETCH_SIZE, FetchSizeBelowBdp.fetchCeiling(perFetch, rttMicros, config.targetBytesPerSecond())));
    }
}
