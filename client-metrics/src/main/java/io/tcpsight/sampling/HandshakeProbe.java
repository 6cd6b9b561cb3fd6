package io.tcpsight.sampling;

import io.tcpsight.model.ConnectionIdentity;
import io.tcpsight.tcp.TcpInfo;
import io.tcpsight.tcp.TcpSockets;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * TCP handshakes to one server, measured twice: the time connect() took (which includes SYN
 * retransmissions when a listen queue dropped the SYN) and the kernel's RTT sample of the
 * handshake read from TCP_INFO (the path itself). Nothing is sent; the server sees a connection
 * that closes before its first request. Without the native library the RTT is the connect time.
 */
public final class HandshakeProbe {
    /** The result of a few probes of one server. */
    public static final class Result {
        private final InetSocketAddress server;
        private final Duration bestRtt;
        private final Duration fastestHandshake;
        private final Duration slowestHandshake;
        private final int probes;
        private final List<String> failures;

        Result(InetSocketAddress server, Duration bestRtt, Duration fastestHandshake, Duration slowestHandshake, int probes,
                List<String> failures) {
            this.server = server;
            this.bestRtt = bestRtt;
            this.fastestHandshake = fastestHandshake;
            this.slowestHandshake = slowestHandshake;
            this.probes = probes;
            this.failures = List.copyOf(failures);
        }

        public InetSocketAddress server() {
            return server;
        }

        /** The lowest RTT any handshake saw: the path's round trip. */
        public Duration rtt() {
            return bestRtt;
        }

        public Duration fastestHandshake() {
            return fastestHandshake;
        }

        /** The longest connect(): a SYN retransmission shows here as about 1 s more. */
        public Duration slowestHandshake() {
            return slowestHandshake;
        }

        /** Handshakes that completed. */
        public int probes() {
            return probes;
        }

        public List<String> failures() {
            return failures;
        }
    }

    private HandshakeProbe() {
    }

    /** count handshakes in a row; throws when none completes. */
    public static Result probe(InetSocketAddress server, int count, Duration timeout) throws IOException {
        Duration bestRtt = null;
        Duration fastest = null;
        Duration slowest = null;
        int completed = 0;
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            try {
                Duration[] handshakeAndRtt = once(server, timeout);
                completed++;
                fastest = fastest == null || handshakeAndRtt[0].compareTo(fastest) < 0 ? handshakeAndRtt[0] : fastest;
                slowest = slowest == null || handshakeAndRtt[0].compareTo(slowest) > 0 ? handshakeAndRtt[0] : slowest;
                bestRtt = bestRtt == null || handshakeAndRtt[1].compareTo(bestRtt) < 0 ? handshakeAndRtt[1] : bestRtt;
            } catch (IOException failed) {
                failures.add(String.valueOf(failed.getMessage()));
            }
        }
        if (completed == 0) {
            throw new IOException("no handshake with " + ConnectionIdentity.address(server) + " within " + timeout.toMillis() + " ms: "
                    + String.join("; ", failures));
        }
        return new Result(server, bestRtt, fastest, slowest, completed, failures);
    }

    private static Duration[] once(InetSocketAddress server, Duration timeout) throws IOException {
        InetSocketAddress resolved = server.isUnresolved() ? new InetSocketAddress(server.getHostString(), server.getPort()) : server;
        if (resolved.isUnresolved()) {
            throw new IOException("cannot resolve " + server.getHostString());
        }
        try (SocketChannel channel = SocketChannel.open()) {
            long start = System.nanoTime();
            channel.socket().connect(resolved, (int) Math.max(1, timeout.toMillis()));
            Duration handshake = Duration.ofNanos(System.nanoTime() - start);
            Duration rtt = handshake;
            if (TcpSockets.availability().isAvailable()) {
                TcpInfo info = TcpSockets.tcpInfo(channel);
                rtt = info.minRtt().orElse(info.rtt());
            }
            return new Duration[] {handshake, rtt};
        } catch (IOException failed) {
            throw new IOException(failed.getClass().getSimpleName() + ": " + failed.getMessage(), failed);
        }
    }
}
