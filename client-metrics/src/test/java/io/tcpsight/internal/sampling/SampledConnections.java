package io.tcpsight.internal.sampling;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.tcp.TcpState;
import java.net.InetSocketAddress;

/**
 * Tracked connections with a latest sample of chosen figures, for tests of what reads samples
 * (ranking, tables) as pure functions: two samples a second apart, so the latest has an interval.
 */
public final class SampledConnections {
    private SampledConnections() {}

    /** A tracked connection's last sample, for a test's namer, which runs right after sampling. */
    public static ConnectionSample latest(TrackedConnection connection) {
        return connection.latest().orElseThrow();
    }

    /**
     * A broker-side connection on descriptor {@code fd} from a client port of its own, whose last
     * interval was busy {@code busyMicros}, of which {@code rwndLimitedMicros} limited by the peer's window.
     */
    public static TrackedConnection sampled(int fd, long rttMicros, long busyMicros, long rwndLimitedMicros) {
        return measured(
                ConnectionIdentity.of(
                        Role.BROKER,
                        new InetSocketAddress("10.0.0.1", 9092),
                        new InetSocketAddress("10.0.0.2", 20_000 + fd)),
                fd,
                rttMicros,
                busyMicros,
                rwndLimitedMicros);
    }

    /** A client's connection on descriptor {@code fd} to the broker at {@code remote}, its path measured at {@code rttMicros}. */
    public static TrackedConnection clientTo(InetSocketAddress remote, int fd, long rttMicros) {
        return measured(
                ConnectionIdentity.of(Role.CLIENT, new InetSocketAddress("10.0.0.1", 40_000 + fd), remote),
                fd,
                rttMicros,
                0,
                0);
    }

    /**
     * Gives {@code connection} a latest sample at {@code endNanos} whose interval began at {@code startNanos},
     * later than the sample before it (at {@code earlierNanos}): as read after rounds that carried it unread.
     */
    public static void readAfterCarried(
            TrackedConnection connection, long earlierNanos, long startNanos, long endNanos) {
        ConnectionSample earlier = ConnectionSample.at(earlierNanos)
                .state(TcpState.ESTABLISHED)
                .counters(0, 0, 0, 0)
                .build();
        connection.latest(ConnectionSample.at(endNanos)
                .state(TcpState.ESTABLISHED)
                .counters(0, 0, 0, 0)
                .after(earlier)
                .intervalFrom(startNanos)
                .build());
    }

    /** Gives {@code connection} a latest sample at {@code nanoTime}, after the one it had: a round's read, nothing moved. */
    public static void readAt(TrackedConnection connection, long nanoTime) {
        connection.latest(ConnectionSample.at(nanoTime)
                .state(TcpState.ESTABLISHED)
                .counters(0, 0, 0, 0)
                .after(connection.latest().orElse(null))
                .build());
    }

    private static TrackedConnection measured(
            ConnectionIdentity identity, int fd, long rttMicros, long busyMicros, long rwndLimitedMicros) {
        TrackedConnection connection = new TrackedConnection(fd, fd, identity);
        ConnectionSample first = ConnectionSample.at(0)
                .state(TcpState.ESTABLISHED)
                .rtt(rttMicros, rttMicros)
                .limitedTimes(0, 0, 0)
                .counters(0, 0, 0, 0)
                .build();
        connection.latest(ConnectionSample.at(1_000_000_000L)
                .state(TcpState.ESTABLISHED)
                .rtt(rttMicros, rttMicros)
                .limitedTimes(busyMicros, rwndLimitedMicros, 0)
                .counters(0, 0, 0, 0)
                .after(first)
                .build());
        return connection;
    }
}
