package io.tcpsight.connect;

import io.tcpsight.tcp.TcpInfo;
import io.tcpsight.tcp.TcpSockets;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The round trip to a Kafka cluster, measured by the kernel: a few TCP handshakes to each
 * bootstrap server, read back through TCP_INFO (the handshake's RTT sample), or timed around
 * connect() where the native library is unavailable. Nothing is sent; the broker sees a
 * connection that closes before its first request.
 */
final class ClusterRtt {
    static final int PROBES_PER_SERVER = 3;

    private ClusterRtt() {
    }

    /** The slowest server's best handshake RTT: the path that limits a client of the whole cluster. */
    static Duration measure(List<InetSocketAddress> servers, Duration timeout) throws IOException {
        if (servers.isEmpty()) {
            throw new IOException("no bootstrap server to measure");
        }
        Duration slowest = Duration.ZERO;
        List<String> failures = new ArrayList<>();
        for (InetSocketAddress server : servers) {
            Duration best = null;
            for (int probe = 0; probe < PROBES_PER_SERVER; probe++) {
                try {
                    Duration rtt = probe(server, timeout);
                    best = best == null || rtt.compareTo(best) < 0 ? rtt : best;
                } catch (IOException failed) {
                    failures.add(server + ": " + failed.getMessage());
                }
            }
            if (best == null) {
                throw new IOException("no handshake with " + server + " within " + timeout.toMillis() + " ms: " + failures);
            }
            slowest = best.compareTo(slowest) > 0 ? best : slowest;
        }
        return slowest;
    }

    private static Duration probe(InetSocketAddress server, Duration timeout) throws IOException {
        InetSocketAddress resolved = server.isUnresolved() ? new InetSocketAddress(server.getHostString(), server.getPort()) : server;
        if (resolved.isUnresolved()) {
            throw new IOException("cannot resolve " + server.getHostString());
        }
        try (SocketChannel channel = SocketChannel.open()) {
            long start = System.nanoTime();
            channel.socket().connect(resolved, (int) Math.max(1, timeout.toMillis()));
            long elapsed = System.nanoTime() - start;
            if (TcpSockets.availability().isAvailable()) {
                TcpInfo info = TcpSockets.tcpInfo(channel);
                Optional<Duration> minRtt = info.minRtt();
                return minRtt.orElse(info.rtt());
            }
            return Duration.ofNanos(elapsed);
        }
    }
}
