package io.tcpsight.internal.monitor;

import io.tcpsight.internal.diagnose.Finding;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.sampling.ConnectionSample;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One connection as a round saw and judged it: the sample the round read, the facts the rules
 * judged, the window ceiling they judged by and the findings they raised. Exporters read this,
 * so that a dashboard and a finding never disagree about one sample, and nothing is parked on the
 * connection for them. The round the monitor keeps for its outputs between rounds
 * ({@link ConnectionMonitor#lastRound()}) keeps each connection's sample and ceiling only: the facts
 * and the rules' own findings are the listeners', told once.
 */
public final class JudgedConnection {
    private final TrackedConnection connection;
    private final ConnectionSample sample;
    /** Null in a kept round. */
    private final ConnectionFacts facts;
    /** -1 when unknown: a primitive, since every kept connection holds one between rounds. */
    private final long windowCeilingBytes;

    private final List<Finding> findings;

    JudgedConnection(
            TrackedConnection connection,
            ConnectionSample sample,
            ConnectionFacts facts,
            Optional<Long> windowCeilingBytes,
            List<Finding> findings) {
        this(connection, sample, facts, windowCeilingBytes.orElse(-1L), findings);
    }

    private JudgedConnection(
            TrackedConnection connection,
            ConnectionSample sample,
            ConnectionFacts facts,
            long windowCeilingBytes,
            List<Finding> findings) {
        this.connection = connection;
        this.sample = sample;
        this.facts = facts;
        this.windowCeilingBytes = windowCeilingBytes;
        this.findings = findings;
    }

    /** The same connection, sample and ceiling, as a kept round holds it (no facts, no rule output). */
    JudgedConnection kept() {
        return new JudgedConnection(connection, sample, null, windowCeilingBytes, List.of());
    }

    public TrackedConnection connection() {
        return connection;
    }

    /** The connections alone, in the same order. */
    public static List<TrackedConnection> connections(List<JudgedConnection> judged) {
        List<TrackedConnection> connections = new ArrayList<>(judged.size());
        for (JudgedConnection each : judged) {
            connections.add(each.connection);
        }
        return connections;
    }

    /** The sample this round judged (the connection's latest may be newer by now). */
    public ConnectionSample sample() {
        return sample;
    }

    /** The facts the rules judged, in the round as told to its listeners; empty in a kept round. */
    public Optional<ConnectionFacts> facts() {
        return Optional.ofNullable(facts);
    }

    /** The most this end could advertise, as the rules judge it ({@code WindowModel.windowCeiling}); empty when unknown. */
    public Optional<Long> windowCeilingBytes() {
        return windowCeilingBytes < 0 ? Optional.empty() : Optional.of(windowCeilingBytes);
    }

    /**
     * The rules' findings on this connection, including those of a socket whose owner is unknown,
     * which the round does not publish (it summarizes them instead); empty in a kept round, whose
     * published findings are {@link Round#findings()}.
     */
    public List<Finding> findings() {
        return findings;
    }
}
