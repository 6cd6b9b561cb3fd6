package io.tcpsight.internal.diagnose.coverage;

import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * untracked-connections: connections tcpsight does not watch because it tracks at most
 * tcpsight.max.tracked.connections, one finding per listener they came in on (or for the
 * component's own client connections). Silence about them would read as health.
 */
public final class TrackingRules {
    /** The largest tcpsight.max.tracked.connections allows. */
    static final long MOST_TRACKED = 1_000_000;

    private TrackingRules() {}

    /**
     * @param untrackedByListener open connections refused by listener name ("" for none)
     * @param tracked connections tracked now
     * @param capacity tcpsight.max.tracked.connections
     * @param role this process's end: broker for a broker's listeners, client otherwise
     */
    public static List<Finding> untrackedConnections(
            Map<String, Long> untrackedByListener, int tracked, int capacity, Role role) {
        long untracked = 0;
        for (long count : untrackedByListener.values()) {
            untracked += count;
        }
        List<Finding> findings = new ArrayList<>();
        if (untracked <= 0) {
            return findings;
        }
        long enough = Math.min(MOST_TRACKED, roundUp((tracked + untracked) * 5 / 4));
        for (Map.Entry<String, Long> listener : untrackedByListener.entrySet()) {
            ConnectionIdentity at = ConnectionIdentity.of(role, null, null);
            if (!listener.getKey().isEmpty()) {
                at = at.withListener(listener.getKey());
            }
            List<Evidence> evidence = List.of(
                    new Evidence("untracked", listener.getValue(), "connections"),
                    new Evidence("untrackedInAll", untracked, "connections"),
                    new Evidence("tracked", tracked, "connections"),
                    new Evidence("tcpsight.max.tracked.connections", capacity, "connections"));
            findings.add(new Finding(
                    RuleId.UNTRACKED_CONNECTIONS,
                    Severity.WARN,
                    at,
                    evidence,
                    new Remedy(
                            List.of(new Setting("tcpsight", "tcpsight.max.tracked.connections", Long.toString(enough))),
                            String.format(
                                    "%d connection(s)%s are open but not watched (%d in all): tcpsight tracks at most"
                                            + " %d, and no finding can name a connection it does not watch; %d covers the"
                                            + " %d open with room to grow",
                                    listener.getValue(),
                                    listener.getKey().isEmpty() ? "" : " on listener " + listener.getKey(),
                                    untracked,
                                    capacity,
                                    enough,
                                    tracked + untracked))));
        }
        return findings;
    }

    /** Rounds up to two significant digits, so that the advice reads as a setting: 18,750 -> 19,000. */
    static long roundUp(long value) {
        long unit = 1;
        while (value / unit >= 100) {
            unit *= 10;
        }
        return (value + unit - 1) / unit * unit;
    }
}
