package io.tcpsight.benchmarks;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.FindingsBoard;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.tcp.LoopbackConnections;
import io.tcpsight.internal.tcp.TcpSockets;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.function.IntFunction;

/**
 * Loopback connection pairs watched as a broker's agent watches its clients, for the benchmarks:
 * both ends of each pair tracked on the PLAINTEXT listener under the pair's client.id, and the
 * monitor that samples and judges them.
 */
final class BrokerSideLoopback {
    private BrokerSideLoopback() {}

    /** A registry of every end of {@code loopback}'s pairs, each pair named by {@code clientIdOfPair}. */
    static ConnectionRegistry tracked(LoopbackConnections loopback, IntFunction<String> clientIdOfPair)
            throws IOException {
        ConnectionRegistry registry = new ConnectionRegistry(2 * loopback.clients.size());
        for (int pair = 0; pair < loopback.clients.size(); pair++) {
            for (SocketChannel channel :
                    new SocketChannel[] {loopback.clients.get(pair), loopback.accepted.get(pair)}) {
                int fd = TcpSockets.fileDescriptor(channel);
                registry.track(
                        fd,
                        TcpSockets.socketInode(fd).orElse(0),
                        ConnectionIdentity.of(
                                        Role.BROKER, (InetSocketAddress) channel.getLocalAddress(), (InetSocketAddress)
                                                channel.getRemoteAddress())
                                .withClientId(clientIdOfPair.apply(pair))
                                .withListener("PLAINTEXT"));
            }
        }
        return registry;
    }

    /** The agent's monitor over the registry: Kafka settings unknown, this host's kernel, a quiet board. */
    static ConnectionMonitor monitor(ConnectionRegistry registry) {
        return new ConnectionMonitor(
                registry,
                TcpsightConfig.defaults(),
                connection -> KafkaSettings.unknown(),
                () -> HostTcpFacts.current().kernelFacts(),
                new FindingsBoard(600_000, finding -> {}));
    }
}
