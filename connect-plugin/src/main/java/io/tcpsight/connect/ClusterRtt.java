package io.tcpsight.connect;

import io.tcpsight.sampling.HandshakeProbe;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/** The round trip to a Kafka cluster, measured by the kernel on a few TCP handshakes to each bootstrap server. */
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
        for (InetSocketAddress server : servers) {
            Duration best = HandshakeProbe.probe(server, PROBES_PER_SERVER, timeout).rtt();
            slowest = best.compareTo(slowest) > 0 ? best : slowest;
        }
        return slowest;
    }
}
