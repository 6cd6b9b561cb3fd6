package io.tcpsight.internal.diagnose.finding;

import io.tcpsight.internal.model.ConnectionIdentity;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * One actionable finding: which rule, how bad, which connection (or listener), the numbers it
 * rests on, and the exact change that fixes it. Serialised by {@link FindingJson}. A finding that
 * names a limit on a flow carries it ({@link #limit()}), and once the round knows every remedy
 * named for the connection, the rate the flow should reach after all of them: as evidence
 * {@value #EXPECTED_AFTER_ALL} and at the end of its why, so every output says the same.
 */
public final class Finding {
    /** The evidence key of the rate expected once every remedy named for the connection is applied. */
    public static final String EXPECTED_AFTER_ALL = "expectedRateAfterAll";

    private final RuleId rule;
    private final Severity severity;
    private final ConnectionIdentity connection;
    /** As the rule gave them, without the expected rate: a finding judged again is annotated afresh. */
    private final List<Evidence> ownEvidence;

    private final Remedy ownRemedy;
    private final Limit limit;
    private final double expectedBytesPerSecond;
    private final List<Evidence> evidence;
    private final Remedy remedy;

    public Finding(
            RuleId rule, Severity severity, ConnectionIdentity connection, List<Evidence> evidence, Remedy remedy) {
        this(rule, severity, connection, List.copyOf(evidence), remedy, null, Double.NaN);
    }

    private Finding(
            RuleId rule,
            Severity severity,
            ConnectionIdentity connection,
            List<Evidence> ownEvidence,
            Remedy ownRemedy,
            Limit limit,
            double expectedBytesPerSecond) {
        this.rule = rule;
        this.severity = severity;
        this.connection = connection;
        this.ownEvidence = ownEvidence;
        this.ownRemedy = ownRemedy;
        this.limit = limit;
        this.expectedBytesPerSecond = expectedBytesPerSecond;
        if (Double.isNaN(expectedBytesPerSecond)) {
            this.evidence = ownEvidence;
            this.remedy = ownRemedy;
        } else {
            double mbit = Math.round(Rates.mbit(expectedBytesPerSecond) * 10) / 10.0;
            List<Evidence> all = new ArrayList<>(ownEvidence);
            all.add(new Evidence(EXPECTED_AFTER_ALL, mbit, "Mbit/s"));
            this.evidence = Collections.unmodifiableList(all);
            this.remedy = new Remedy(
                    ownRemedy.settings(),
                    ownRemedy.why() + String.format(Locale.ROOT, "; expected after all: %.1f Mbit/s", mbit));
        }
    }

    /** This finding naming {@code named} as the limit its remedy lifts. */
    public Finding withLimit(Limit named) {
        return new Finding(rule, severity, connection, ownEvidence, ownRemedy, named, expectedBytesPerSecond);
    }

    /** This finding with the rate expected once every remedy named for its connection is applied, replacing any before. */
    public Finding withExpectedAfterAll(double bytesPerSecond) {
        if (!(bytesPerSecond >= 0) || Double.isInfinite(bytesPerSecond)) {
            throw new IllegalArgumentException("an expected rate must be finite and >= 0, got " + bytesPerSecond);
        }
        return new Finding(rule, severity, connection, ownEvidence, ownRemedy, limit, bytesPerSecond);
    }

    /** The limit on the flow this finding names, if it names one. */
    public Optional<Limit> limit() {
        return Optional.ofNullable(limit);
    }

    /** The rate expected after every remedy named for the connection, in bytes/s, once the round has said it. */
    public OptionalDouble expectedAfterAll() {
        return Double.isNaN(expectedBytesPerSecond)
                ? OptionalDouble.empty()
                : OptionalDouble.of(expectedBytesPerSecond);
    }

    public RuleId rule() {
        return rule;
    }

    public Severity severity() {
        return severity;
    }

    public ConnectionIdentity connection() {
        return connection;
    }

    public List<Evidence> evidence() {
        return evidence;
    }

    public Optional<Evidence> evidence(String name) {
        return evidence.stream().filter(item -> item.name().equals(name)).findFirst();
    }

    public Remedy remedy() {
        return remedy;
    }

    /** The one log line: rule, severity, connection, key evidence, remedy. */
    public String logLine() {
        return "tcpsight " + severity.label() + " " + rule.id() + " [" + connection.describe() + "] "
                + evidence.stream().map(Evidence::describe).collect(Collectors.joining(", ")) + " -> "
                + remedy.describe();
    }

    /** Logs the line at info for an info finding, at warn otherwise. */
    public void logTo(Consumer<String> info, Consumer<String> warn) {
        (severity == Severity.INFO ? info : warn).accept(logLine());
    }

    @Override
    public String toString() {
        return logLine();
    }
}
