package io.tcpsight.benchmarks;

import io.tcpsight.internal.host.HostCpuTimes;
import io.tcpsight.internal.tcp.LiveHostSources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
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
 * What host-cpu-busy adds to a round: the host's CPU time (/proc/stat) and this process's, every
 * round; each of its threads' wait for a CPU (/proc/self/task/TID/schedstat), only in rounds whose
 * CPUs were busy; in a JVM that holds {@code threads} more threads than JMH's own (a broker holds
 * 100-300).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HostCpuReadBenchmark {
    @Param({"100", "500"})
    public int threads;

    private final LiveHostSources sources = new LiveHostSources();
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<Thread> parked = new ArrayList<>();

    @Setup(Level.Trial)
    public void park() {
        for (int thread = 0; thread < threads; thread++) {
            Thread waiting = new Thread(() -> {
                try {
                    release.await();
                } catch (InterruptedException stopped) {
                    Thread.currentThread().interrupt();
                }
            });
            waiting.setDaemon(true);
            waiting.start();
            parked.add(waiting);
        }
    }

    @TearDown(Level.Trial)
    public void unpark() throws InterruptedException {
        release.countDown();
        for (Thread thread : parked) {
            thread.join();
        }
    }

    @Benchmark
    public Optional<HostCpuTimes> everyRound() {
        return sources.cpuTimes();
    }

    @Benchmark
    public Optional<Map<Long, Long>> busyRounds() {
        return sources.threadWaits();
    }
}
