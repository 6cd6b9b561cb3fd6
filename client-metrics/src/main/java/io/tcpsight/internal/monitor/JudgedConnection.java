package io.tcpsight.internal.monitor;

import io.tcpsight.internal.diagnose.Finding;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.sampling.ConnectionSample;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.util.List;
import java.util.Optional;

/**
 * One connection as a round saw and judged it: the sample the round read, the facts the rules
 * judged, the window ceiling they judged by and the findings they raised. Exporters read this,
 * so that a dashboard and a finding never disagree about one sample, and nothing is parked on the
 * connection for them.
 */
public final class JudgedConnection {
    private final TrackedConnection connection;
    private final ConnectionSample sample;
    private final ConnectionFacts facts;
    private final Optional<Long> windowCeilingBytes;
    private final List<Finding> findings;

    JudgedConnection(
            TrackedConnection connection,
            ConnectionSample sample,
            ConnectionFacts facts,
            Optional<Long> windowCeilingBytes,
            List<Finding> findings) {
        this.connection = connection;
        this.sample = sample;
        this.facts = facts;
        this.windowCeilingBytes = windowCeilingBytes;
        this.findings = findings;
    }

    public TrackedConnection connection() {
        return connection;
    }

    /** The sample this round judged (the connection's latest may be newer by now). */
    public ConnectionSample sample() {
        return sample;
    }

    public ConnectionFacts facts() {
        return facts;
    }

    /** The most this end could advertise, as the rules judge it ({@code WindowModel.windowCeiling}); empty when unknown. */
    public Optional<Long> windowCeilingBytes() {
        return windowCeilingBytes;
    }

    /**
     * The rules' findings on this connection, including those of a socket whose owner is unknown,
     * which the round does not publish (it summarizes them instead).
     */
    public List<Finding> findings() {
        return findings;
    }
}
