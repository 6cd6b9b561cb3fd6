package io.tcpsight.benchmarks;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.FindingsBoard;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.sampling.CensusTracker;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.tcp.LoopbackConnections;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What TcpsightMetricsReporter costs per sampling interval: one process census, one batched
 * sample, the rules and the findings board, over {@code connections} connections to the
 * "broker" port (the client ends of loopback pairs; the JVM holds both ends).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ReporterRoundBenchmark {
    @Param({"10", "100", "1000"})
    public int connections;

    private LoopbackConnections loopback;
    private CensusTracker census;
    private ConnectionMonitor monitor;

    @Setup(Level.Trial)
    public void open() throws IOException {
        loopback = LoopbackConnections.ipv4().pairs(connections);
        int port = loopback.port();
        ConnectionRegistry registry = new ConnectionRegistry(10_000);
        KafkaSettings settings =
                KafkaSettings.fromClientConfig(Map.of("receive.buffer.bytes", "65536"), ClientKind.CONSUMER);
        monitor = new ConnectionMonitor(
                registry,
                TcpsightConfig.defaults(),
                connection -> settings,
                () -> HostTcpFacts.current().kernelFacts(),
                new FindingsBoard(600_000, finding -> {}));
        census = new CensusTracker(
                registry, socket -> socket.remote().getPort() == port, socket -> CensusTracker.clientIdentity(
                                socket, "consumer-bench-1")
                        .ownerKnownBy(OwnerKnownBy.SOLE_CLIENT));
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        loopback.close();
    }

    @Benchmark
    public int reporterRound() throws IOException {
        census.refresh();
        monitor.round();
        return monitor.registry().size();
    }
}
