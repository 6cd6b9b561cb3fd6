package io.tcpsight.internal.monitor;

import io.tcpsight.internal.diagnose.Finding;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What one round produced: each connection it judged, and every finding it published. */
public final class Round {
    /** Before the first round: nothing sampled, nothing found. */
    static final Round NONE = new Round(List.of(), List.of());

    private final List<JudgedConnection> connections;
    private final List<Finding> findings;

    Round(List<JudgedConnection> connections, List<Finding> findings) {
        this.connections = connections;
        this.findings = findings;
    }

    /** The connections sampled this round, each with what the round saw and judged. */
    public List<JudgedConnection> connections() {
        return connections;
    }

    /** This round as the monitor keeps it for its outputs: each connection's sample and ceiling, the findings. */
    Round kept() {
        List<JudgedConnection> kept = new ArrayList<>(connections.size());
        for (JudgedConnection judged : connections) {
            kept.add(judged.kept());
        }
        return new Round(Collections.unmodifiableList(kept), findings);
    }

    /** Every finding published: the connections', the round's own (listeners, host, configured buffers). */
    public List<Finding> findings() {
        return findings;
    }
}
