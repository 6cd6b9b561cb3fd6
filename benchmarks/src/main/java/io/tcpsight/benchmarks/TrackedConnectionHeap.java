package io.tcpsight.benchmarks;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.config.TcpsightConfig;
import io.tcpsight.diagnose.FindingsBoard;
import io.tcpsight.export.TcpsightMeterBinder;
import io.tcpsight.host.HostTcpFacts;
import io.tcpsight.model.ConnectionIdentity;
import io.tcpsight.model.KafkaSettings;
import io.tcpsight.model.Role;
import io.tcpsight.monitor.ConnectionMonitor;
import io.tcpsight.sampling.ConnectionRegistry;
import io.tcpsight.tcp.LoopbackConnections;
import io.tcpsight.tcp.TcpSockets;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Instant;

/**
 * The heap one tracked connection costs the broker agent: used heap after full collections,
 * with {@code pairs} loopback connection pairs (both ends tracked, as a broker and its clients
 * in one process would be) tracked, sampled and judged for three rounds and bound to a
 * Prometheus registry, against the same sockets open and untracked. Run:
 * {@code java -cp benchmarks/target/benchmarks.jar io.tcpsight.benchmarks.TrackedConnectionHeap 5000}.
 */
public final class TrackedConnectionHeap {
    private TrackedConnectionHeap() {}

    public static void main(String[] args) throws Exception {
        int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(pairs)) {
            long before = usedHeap();
            ConnectionRegistry registry = new ConnectionRegistry(2 * pairs);
            int client = 0;
            for (SocketChannel[] side : new SocketChannel[][] {
                loopback.clients.toArray(new SocketChannel[0]), loopback.accepted.toArray(new SocketChannel[0])
            }) {
                for (SocketChannel channel : side) {
                    registry.track(
                            TcpSockets.fileDescriptor(channel),
                            TcpSockets.socketInode(TcpSockets.fileDescriptor(channel))
                                    .orElse(0),
                            ConnectionIdentity.of(
                                            Role.BROKER,
                                            (InetSocketAddress) channel.getLocalAddress(),
                                            (InetSocketAddress) channel.getRemoteAddress(),
                                            Instant.now())
                                    .withClientId("client-" + (client++ % 3000))
                                    .withListener("PLAINTEXT"));
                }
            }
            ConnectionMonitor monitor = new ConnectionMonitor(
                    registry,
                    TcpsightConfig.defaults(),
                    connection -> KafkaSettings.unknown(),
                    () -> HostTcpFacts.current().kernelFacts(),
                    new FindingsBoard(600_000, finding -> {}));
            PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            new TcpsightMeterBinder(monitor).bindTo(prometheus);
            for (int round = 0; round < 3; round++) {
                monitor.round();
            }
            String scrape = prometheus.scrape();
            long after = usedHeap();
            long tracked = registry.size();
            System.out.printf(
                    "%d connections tracked: %d bytes of heap, %.0f bytes a connection (scrape %d bytes, %d findings)%n",
                    tracked,
                    after - before,
                    (after - before) / (double) tracked,
                    scrape.length(),
                    monitor.board().current().size());
            if (registry.size() < 0) {
                System.out.println(monitor); // keeps the monitor reachable until the reading above
            }
        }
    }

    private static long usedHeap() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
