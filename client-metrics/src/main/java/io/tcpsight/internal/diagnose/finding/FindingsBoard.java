package io.tcpsight.internal.diagnose.finding;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The findings of the latest round, for exporters to read, and a log that reports a finding
 * when it appears and again at most every {@code tcpsight.finding.log.interval.ms} per
 * connection and rule.
 */
public final class FindingsBoard {
    private final long logIntervalMillis;
    private final Consumer<Finding> log;
    private final Map<String, Long> lastLogged = new ConcurrentHashMap<>();
    private volatile List<Finding> current = Collections.emptyList();

    public FindingsBoard(long logIntervalMillis, Consumer<Finding> log) {
        this.logIntervalMillis = logIntervalMillis;
        this.log = log;
    }

    /** Replaces the current findings with this round's and logs the ones due. */
    public void publish(List<Finding> findings, long nowMillis) {
        current = Collections.unmodifiableList(new ArrayList<>(findings));
        Set<String> keys = new HashSet<>(findings.size() * 2);
        for (Finding finding : findings) {
            String key = finding.rule().id() + " " + finding.connection().describe();
            keys.add(key);
            Long last = lastLogged.get(key);
            if (last == null || nowMillis - last >= logIntervalMillis) {
                lastLogged.put(key, nowMillis);
                log.accept(finding);
            }
        }
        // Forget connections that no longer have the finding, so the table stays bounded.
        lastLogged.keySet().retainAll(keys);
    }

    public List<Finding> current() {
        return current;
    }

    public Map<Severity, Integer> countBySeverity() {
        Map<Severity, Integer> counts = new EnumMap<>(Severity.class);
        for (Severity severity : Severity.values()) {
            counts.put(severity, 0);
        }
        for (Finding finding : current) {
            counts.merge(finding.severity(), 1, Integer::sum);
        }
        return counts;
    }

    public int count(RuleId rule, Severity severity) {
        int count = 0;
        for (Finding finding : current) {
            if (finding.rule() == rule && finding.severity() == severity) {
                count++;
            }
        }
        return count;
    }
}
