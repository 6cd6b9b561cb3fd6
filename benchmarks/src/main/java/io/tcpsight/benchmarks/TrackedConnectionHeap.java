package io.tcpsight.benchmarks;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.internal.export.ConnectionMeters;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.tcp.LoopbackConnections;
import java.lang.management.ManagementFactory;

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
            ConnectionRegistry registry = BrokerSideLoopback.tracked(loopback, pair -> "client-" + pair % 3000);
            ConnectionMonitor monitor = BrokerSideLoopback.monitor(registry);
            PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            new ConnectionMeters(monitor).bindTo(prometheus);
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
