package io.tcpsight.internal.monitor;

import io.tcpsight.internal.diagnose.Finding;
import java.util.List;

/** What one round produced: each connection it judged, and every finding it published. */
public final class Round {
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

    /** Every finding published: the connections', the round's own (listeners, host, configured buffers). */
    public List<Finding> findings() {
        return findings;
    }
}
