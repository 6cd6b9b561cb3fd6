package io.tcpsight.benchmarks;

import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.tcp.LoopbackConnections;
import java.io.IOException;
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
 * One sampling round of the broker agent over {@code connections} tracked connections: the
 * batched sample, buffer state every sixth round, interval stats, every rule and the board. The
 * agent tracks by hooks, so no census is in this cost.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class MonitorRoundBenchmark {
    @Param({"1000", "10000"})
    public int connections;

    private LoopbackConnections loopback;
    private ConnectionMonitor monitor;

    @Setup(Level.Trial)
    public void open() throws IOException {
        loopback = LoopbackConnections.ipv4().pairs(connections / 2);
        monitor = BrokerSideLoopback.monitor(BrokerSideLoopback.tracked(loopback, pair -> "consumer-" + pair % 50));
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        loopback.close();
    }

    @Benchmark
    public int agentRound() {
        monitor.round();
        return monitor.board().current().size();
    }
}
