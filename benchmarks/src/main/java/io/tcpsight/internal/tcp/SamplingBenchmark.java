package io.tcpsight.internal.tcp;

import java.io.IOException;
import java.io.InputStream;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost of reading tcp_info for every socket: one batched JNI call, one JNI call per socket,
 * and ss -tin over the whole host. Each operation reads all {@code sockets}; divide by it for
 * the cost per socket (docs/benchmarks.md does).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SamplingBenchmark {
    @Param({"100", "1000", "10000"})
    public int sockets;

    private LoopbackConnections loopback;
    private int[] fds;
    private TcpInfoSampler sampler;
    private byte[] single;

    @Setup(Level.Trial)
    public void open() throws IOException {
        loopback = LoopbackConnections.ipv4().pairs(sockets / 2);
        fds = new int[sockets];
        for (int i = 0; i < sockets / 2; i++) {
            fds[2 * i] = TcpSockets.fileDescriptor(loopback.clients.get(i));
            fds[2 * i + 1] = TcpSockets.fileDescriptor(loopback.accepted.get(i));
        }
        sampler = new TcpInfoSampler(sockets);
        single = new byte[NativeTcp.INFO_CAPACITY];
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        loopback.close();
    }

    @Benchmark
    public long batched() {
        sampler.sample(fds, fds.length);
        return sampler.value(fds.length - 1, TcpInfoField.RTT);
    }

    @Benchmark
    public void jniCallPerSocket(Blackhole sink) {
        for (int fd : fds) {
            sink.consume(NativeTcp.tcpInfo(fd, single));
        }
    }

    @Benchmark
    public long ssWholeHost() throws IOException, InterruptedException {
        Process ss = new ProcessBuilder("ss", "-tin").redirectErrorStream(true).start();
        long bytes = 0;
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = ss.getInputStream()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                bytes += n;
            }
        }
        ss.waitFor();
        return bytes;
    }
}
