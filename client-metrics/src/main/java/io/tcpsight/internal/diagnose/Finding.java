package io.tcpsight.internal.diagnose;

import io.tcpsight.internal.model.ConnectionIdentity;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * One actionable finding: which rule, how bad, which connection (or listener), the numbers it
 * rests on, and the exact change that fixes it. Serialised by {@link FindingJson}.
 */
public final class Finding {
    private final RuleId rule;
    private final Severity severity;
    private final ConnectionIdentity connection;
    private final List<Evidence> evidence;
    private final Remedy remedy;

    public Finding(
            RuleId rule, Severity severity, ConnectionIdentity connection, List<Evidence> evidence, Remedy remedy) {
        this.rule = rule;
        this.severity = severity;
        this.connection = connection;
        this.evidence = Collections.unmodifiableList(evidence);
        this.remedy = remedy;
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
