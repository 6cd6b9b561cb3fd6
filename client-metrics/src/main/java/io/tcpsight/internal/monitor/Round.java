package io.tcpsight.internal.monitor;

import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ConnectionFacts;
import java.util.List;

/** What one round produced: each connection it judged, and every finding it published. */
public final class Round {
    /** Before the first round: nothing sampled, nothing found. */
    static final Round NONE = new Round(List.of(), List.of(), List.of());

    private final List<JudgedConnection> connections;
    private final List<Finding> findings;
    private final List<ConnectionFacts> facts;
    private final List<JudgedConnection> read;

    Round(List<JudgedConnection> connections, List<Finding> findings, List<ConnectionFacts> facts) {
        this(connections, findings, facts, connections);
    }

    Round(
            List<JudgedConnection> connections,
            List<Finding> findings,
            List<ConnectionFacts> facts,
            List<JudgedConnection> read) {
        this.connections = connections;
        this.findings = findings;
        this.facts = facts;
        this.read = read;
    }

    /**
     * The round's connections, each with what the round saw and judged: read this round, or carried unread
     * with the sample and judgement of the round that last read it.
     */
    public List<JudgedConnection> connections() {
        return connections;
    }

    /** Every finding published: the connections', the round's own (listeners, host, configured buffers). */
    public List<Finding> findings() {
        return findings;
    }

    /**
     * The facts the rules judged this round, in the order of {@link #connections()}: one for each
     * connection judged anew, none for one carried unread whose last judgement stands
     * ({@code TrackedConnection.carried()}). The listeners', told once; empty in the round the monitor
     * keeps ({@link #kept()}).
     */
    public List<ConnectionFacts> facts() {
        return facts;
    }

    /**
     * The connections this round read, in the order of {@link #connections()}: all of them but those carried
     * unread (idle, their last sample standing). What a listener that counts what moved visits, so that a
     * round on a big broker does not visit its idle connections for it. Empty in the kept round.
     */
    public List<JudgedConnection> read() {
        return read;
    }

    /** This round as the monitor keeps it for its outputs: its connections and findings, not the facts. */
    Round kept() {
        return new Round(connections, findings, List.of(), List.of());
    }
}
