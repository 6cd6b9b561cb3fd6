package io.tcpsight.internal.monitor;

import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.sampling.ConnectionSample;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.util.AbstractList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * One connection as a round saw and judged it: the sample the round read and the window ceiling the
 * rules judged by. Exporters read this, so that a dashboard and a finding never disagree about one
 * sample, and nothing is parked on the connection for them. The monitor keeps the latest round's
 * ({@link ConnectionMonitor#lastRound()}), so it holds no more than that between rounds.
 */
public final class JudgedConnection {
    private final TrackedConnection connection;
    private final ConnectionSample sample;
    /**
     * -1 when unknown: a primitive, since every connection of the kept round holds one between rounds (an int:
     * a window is at most 1 GiB, 65,535 bytes at scale 14).
     */
    private final int windowCeilingBytes;
    /**
     * The sample's RTT and its interval's larger limited share, kept where the ranking reads them: it visits every
     * connection each round, and reading them off the sample cost two more objects' reads a connection. With the
     * ceiling an int, the object is no larger for them.
     */
    final int rttMicros;

    final float limited;
    /** The connection's own findings as the rules gave them (most often the one shared empty list). */
    private final List<Finding> own;
    /** The identity they were judged under: a connection named since is judged again. */
    private final ConnectionIdentity identity;

    JudgedConnection(
            TrackedConnection connection,
            ConnectionSample sample,
            Optional<Long> windowCeilingBytes,
            List<Finding> own,
            ConnectionIdentity identity) {
        this.connection = connection;
        this.sample = sample;
        this.windowCeilingBytes = (int) Math.min(Integer.MAX_VALUE, windowCeilingBytes.orElse(-1L));
        this.rttMicros = (int) Math.min(Integer.MAX_VALUE, sample.rttMicros());
        IntervalStats interval = sample.movedInInterval() ? sample.interval().get() : null;
        this.limited = interval == null
                ? 0f // an idle interval's shares are 0: no object made for it
                : (float) Math.max(interval.rwndLimitedRatio(), interval.sndbufLimitedRatio());
        this.own = own.isEmpty() ? List.of() : own;
        this.identity = identity;
    }

    /**
     * What the round that last judged this connection kept, if it still stands for a round that carried
     * the connection unread: judged under the identity it has now. Null otherwise: judge it again.
     */
    static JudgedConnection standingFor(TrackedConnection connection) {
        Object kept = connection.judgement().orElse(null);
        if (!(kept instanceof JudgedConnection)) {
            return null;
        }
        JudgedConnection judged = (JudgedConnection) kept;
        return judged.identity == connection.identity() ? judged : null;
    }

    /** The connection's own findings in the round that judged it. */
    List<Finding> own() {
        return own;
    }

    public TrackedConnection connection() {
        return connection;
    }

    /**
     * The connections alone, in the same order: a view, so that a round's sources, each given the
     * round's connections, cost no copy of them each round.
     */
    public static List<TrackedConnection> connections(List<JudgedConnection> judged) {
        return view(judged, each -> each.connection);
    }

    /** The identity the connection was judged under. */
    ConnectionIdentity identity() {
        return identity;
    }

    /**
     * The identities the connections were judged under, in the same order: a view, as {@link #connections}; what
     * the round's own findings were raised under, whatever a hook has named since.
     */
    static List<ConnectionIdentity> identities(List<JudgedConnection> judged) {
        return view(judged, each -> each.identity);
    }

    private static <T> List<T> view(List<JudgedConnection> judged, Function<JudgedConnection, T> part) {
        return new AbstractList<T>() {
            @Override
            public T get(int index) {
                return part.apply(judged.get(index));
            }

            @Override
            public int size() {
                return judged.size();
            }
        };
    }

    /** The sample this round judged (the connection's latest may be newer by now). */
    public ConnectionSample sample() {
        return sample;
    }

    /** The most this end could advertise, as the rules judge it ({@code WindowModel.windowCeiling}); empty when unknown. */
    public Optional<Long> windowCeilingBytes() {
        return windowCeilingBytes < 0 ? Optional.empty() : Optional.of((long) windowCeilingBytes);
    }
}
