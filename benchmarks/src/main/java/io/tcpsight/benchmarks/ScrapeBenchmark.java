package io.tcpsight.benchmarks;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.internal.export.ConnectionMeters;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.tcp.LoopbackConnections;
import java.io.IOException;
import java.io.OutputStream;
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
 * One Prometheus scrape of the broker agent's registry after two sampling rounds over
 * {@code connections} real loopback connections, two per client.id (so 10,000 connections come
 * from 5,000 client.ids). The setup prints the series count and the body's size.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class ScrapeBenchmark {
    @Param({"100", "1000", "10000"})
    public int connections;

    private LoopbackConnections loopback;
    private PrometheusMeterRegistry prometheus;

    @Setup(Level.Trial)
    public void open() throws IOException {
        loopback = LoopbackConnections.ipv4().pairs(connections / 2);
        ConnectionMonitor monitor =
                BrokerSideLoopback.monitor(BrokerSideLoopback.tracked(loopback, pair -> "client-" + pair));
        prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new ConnectionMeters(monitor).bindTo(prometheus);
        monitor.round();
        monitor.round();
        SeriesCount count = new SeriesCount();
        prometheus.scrape(count);
        System.out.printf(
                "%n%d connections from %d client.ids: %d series, %d bytes%n",
                connections, loopback.clients.size(), count.series, count.bytes);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        loopback.close();
    }

    @Benchmark
    public long scrape() throws IOException {
        SeriesCount count = new SeriesCount();
        prometheus.scrape(count);
        return count.bytes;
    }

    /** Counts bytes and sample lines (lines not starting with '#') of a scrape, keeping nothing. */
    static final class SeriesCount extends OutputStream {
        long bytes;
        long series;
        private boolean lineStart = true;
        private boolean comment;

        @Override
        public void write(int b) {
            bytes++;
            if (lineStart) {
                comment = b == '#';
                lineStart = false;
            }
            if (b == '\n') {
                if (!comment) {
                    series++;
                }
                lineStart = true;
            }
        }

        @Override
        public void write(byte[] buffer, int offset, int length) {
            for (int i = offset; i < offset + length; i++) {
                write(buffer[i]);
            }
        }
    }
}
