package io.tcpsight.internal.sampling;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.tcp.TcpInfo;
import io.tcpsight.internal.tcp.TcpSockets;
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
        private final long rttMicros;
        private final long fastestHandshakeMicros;
        private final long slowestHandshakeMicros;
        private final int probes;
        private final List<String> failures;

        Result(
                InetSocketAddress server,
                long rttMicros,
                long fastestHandshakeMicros,
                long slowestHandshakeMicros,
                int probes,
                List<String> failures) {
            this.server = server;
            this.rttMicros = rttMicros;
            this.fastestHandshakeMicros = fastestHandshakeMicros;
            this.slowestHandshakeMicros = slowestHandshakeMicros;
            this.probes = probes;
            this.failures = List.copyOf(failures);
        }

        public InetSocketAddress server() {
            return server;
        }

        /** The lowest RTT any handshake saw: the path's round trip. */
        public long rttMicros() {
            return rttMicros;
        }

        public long fastestHandshakeMicros() {
            return fastestHandshakeMicros;
        }

        /** The longest connect(): a SYN retransmission shows here as about 1 s more. */
        public long slowestHandshakeMicros() {
            return slowestHandshakeMicros;
        }

        /** Handshakes that completed. */
        public int probes() {
            return probes;
        }

        public List<String> failures() {
            return failures;
        }
    }

    private HandshakeProbe() {}

    /** count handshakes in a row; throws when none completes. */
    public static Result probe(InetSocketAddress server, int count, Duration timeout) throws IOException {
        long bestRtt = Long.MAX_VALUE;
        long fastest = Long.MAX_VALUE;
        long slowest = 0;
        int completed = 0;
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            try {
                long[] handshakeAndRtt = once(server, timeout);
                completed++;
                fastest = Math.min(fastest, handshakeAndRtt[0]);
                slowest = Math.max(slowest, handshakeAndRtt[0]);
                bestRtt = Math.min(bestRtt, handshakeAndRtt[1]);
            } catch (IOException failed) {
                failures.add(String.valueOf(failed.getMessage()));
            }
        }
        if (completed == 0) {
            throw new IOException("no handshake with " + ConnectionIdentity.address(server) + " within "
                    + timeout.toMillis() + " ms: " + String.join("; ", failures));
        }
        return new Result(server, bestRtt, fastest, slowest, completed, failures);
    }

    /** The connect() time and the path's RTT, both in microseconds. */
    private static long[] once(InetSocketAddress server, Duration timeout) throws IOException {
        InetSocketAddress resolved =
                server.isUnresolved() ? new InetSocketAddress(server.getHostString(), server.getPort()) : server;
        if (resolved.isUnresolved()) {
            throw new IOException("cannot resolve " + server.getHostString());
        }
        try (SocketChannel channel = SocketChannel.open()) {
            long start = System.nanoTime();
            channel.socket().connect(resolved, (int) Math.max(1, timeout.toMillis()));
            long handshake = (System.nanoTime() - start) / 1000;
            long rtt = handshake;
            if (TcpSockets.availability().isAvailable()) {
                TcpInfo info = TcpSockets.tcpInfo(channel);
                rtt = info.minRttMicros().orElse(info.rttMicros());
            }
            return new long[] {handshake, rtt};
        } catch (IOException failed) {
            throw new IOException(failed.getClass().getSimpleName() + ": " + failed.getMessage(), failed);
        }
    }
}
