package io.tcpsight.internal.diagnose.host;

import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.IntervalStats;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A connection that sent in the interval, as the round saw it: the packets a device dropped on the
 * way out were its own when it was busy sending or retransmitted then. (A qdisc drop of this
 * host's own TCP segment is often no retransmission: the stack takes the segment back and sends
 * it later with a smaller window, so a busy sender is hurt without sending.)
 */
public final class SendingConnection {
    /** Busy at least half the interval: a sender whose packets the device carried. */
    static final double BUSY = 0.5;
    /** A finding names at most this many hurt connections by client.id. */
    private static final int NAMED_CONNECTIONS = 5;

    private final ConnectionIdentity identity;
    private final long retransmitted;
    private final double busyRatio;
    private final double rateBytesPerSecond;

    public SendingConnection(ConnectionIdentity identity, long retransmitted, double busyRatio) {
        this(identity, retransmitted, busyRatio, 0);
    }

    /** @param rateBytesPerSecond what it moved in the interval, sent or received, whichever is more */
    public SendingConnection(
            ConnectionIdentity identity, long retransmitted, double busyRatio, double rateBytesPerSecond) {
        this.identity = identity;
        this.retransmitted = retransmitted;
        this.busyRatio = busyRatio;
        this.rateBytesPerSecond = rateBytesPerSecond;
    }

    /**
     * The connection as the host rules see it from its last interval: when it retransmitted, was
     * busy, or received {@code leastReceivedBytesPerSecond} or more (a flow of substance for
     * host-cpu-busy: not every idle consumer's heartbeat, in a round over every connection); its
     * rate what it sent or received, whichever is more.
     */
    public static Optional<SendingConnection> of(
            ConnectionIdentity identity, IntervalStats interval, double leastReceivedBytesPerSecond) {
        if (interval.retransmittedSegments() == 0
                && interval.busyRatio() <= 0
                && !(interval.receiveRateBytesPerSecond() > 0
                        && interval.receiveRateBytesPerSecond() >= leastReceivedBytesPerSecond)) {
            return Optional.empty();
        }
        return Optional.of(new SendingConnection(
                identity,
                interval.retransmittedSegments(),
                interval.busyRatio(),
                Math.max(interval.sendRateBytesPerSecond(), interval.receiveRateBytesPerSecond())));
    }

    boolean hurt() {
        return retransmitted > 0 || busyRatio >= BUSY;
    }

    boolean busy() {
        return busyRatio >= BUSY;
    }

    double rateBytesPerSecond() {
        return rateBytesPerSecond;
    }

    public ConnectionIdentity identity() {
        return identity;
    }

    public long retransmitted() {
        return retransmitted;
    }

    InetAddress local() {
        return identity.local().map(InetSocketAddress::getAddress).orElse(null);
    }

    /** The connections that were hurt and pass {@code where}, the most retransmissions first. */
    static List<SendingConnection> hurtOf(List<SendingConnection> sending, Predicate<SendingConnection> where) {
        List<SendingConnection> hurt = new ArrayList<>();
        for (SendingConnection connection : sending) {
            if (connection.hurt() && where.test(connection)) {
                hurt.add(connection);
            }
        }
        hurt.sort(Comparator.comparingLong(SendingConnection::retransmitted).reversed());
        return hurt;
    }

    /** How many connections were hurt and the first few client.ids, bounded. */
    static void addHurt(List<Evidence> evidence, List<SendingConnection> hurt) {
        evidence.add(new Evidence("connectionsHurt", hurt.size(), "connections"));
        List<String> names = new ArrayList<>();
        for (SendingConnection connection : hurt) {
            if (names.size() == NAMED_CONNECTIONS) {
                break;
            }
            connection.identity().clientId().ifPresent(names::add);
        }
        if (!names.isEmpty()) {
            evidence.add(new Evidence("hurtClients", String.join(",", names), ""));
        }
    }
}
