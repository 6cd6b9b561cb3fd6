package io.tcpsight.connect.internal.provider;

import io.tcpsight.internal.sampling.HandshakeProbe;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/** The round trip to a Kafka cluster, measured by the kernel on a few TCP handshakes to each bootstrap server. */
final class ClusterRtt {
    static final int PROBES_PER_SERVER = 3;

    private ClusterRtt() {}

    /** The slowest server's best handshake RTT: the path that limits a client of the whole cluster. */
    static long measureMicros(List<InetSocketAddress> servers, Duration timeout) throws IOException {
        if (servers.isEmpty()) {
            throw new IOException("no bootstrap server to measure");
        }
        long slowest = 0;
        for (InetSocketAddress server : servers) {
            slowest = Math.max(
                    slowest,
                    HandshakeProbe.probe(server, PROBES_PER_SERVER, timeout).rttMicros());
        }
        return slowest;
    }
}
