package io.tcpsight.benchmarks;

import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.MetricsData;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.tcpsight.agent.internal.telemetry.OtlpPushDecoder;
import java.nio.ByteBuffer;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one client telemetry push (KIP-714) costs the broker's agent: the decoder of the agent's jar
 * reads a push of {@code metrics} gauges, each with a node_id and a topic attribute, of which the
 * eight the rules read are among the first. A Java producer to six brokers and ten topics pushes
 * about 200 metrics under the documented subscription (its producer group, per broker and per
 * topic); 1000 stands for a wide one. The setup prints the push's size.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PushDecodeBenchmark {
    private static final String[] KEPT = {
        "org.apache.kafka.producer.record.queue.time.avg",
        "org.apache.kafka.producer.batch.size.avg",
        "org.apache.kafka.producer.bufferpool.wait.ratio",
        "org.apache.kafka.producer.buffer.total.bytes",
        "org.apache.kafka.producer.buffer.available.bytes",
        "org.apache.kafka.producer.node.request.latency.avg",
        "org.apache.kafka.consumer.fetch.manager.fetch.latency.avg",
        "org.apache.kafka.consumer.fetch.manager.records.lag.max"
    };

    @Param({"50", "200", "1000"})
    public int metrics;

    private byte[] push;
    private final OtlpPushDecoder decoder = new OtlpPushDecoder(1);

    @Setup(Level.Trial)
    public void write() {
        ScopeMetrics.Builder scope = ScopeMetrics.newBuilder();
        for (int i = 0; i < metrics; i++) {
            String name = i < KEPT.length ? KEPT[i] : "org.apache.kafka.producer.node.metric." + i + ".rate";
            scope.addMetrics(Metric.newBuilder()
                    .setName(name)
                    .setGauge(Gauge.newBuilder()
                            .addDataPoints(NumberDataPoint.newBuilder()
                                    .setAsDouble(i * 1.5)
                                    .setTimeUnixNano(1_764_000_000_000_000_000L + i)
                                    .addAttributes(attribute("node_id", "node-" + (i % 6 + 1)))
                                    .addAttributes(attribute("topic", "orders-" + (i % 10))))));
        }
        push = MetricsData.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder().addScopeMetrics(scope))
                .build()
                .toByteArray();
        System.out.printf("%n%d metrics: a push of %d bytes%n", metrics, push.length);
    }

    private static KeyValue attribute(String key, String value) {
        return KeyValue.newBuilder()
                .setKey(key)
                .setValue(AnyValue.newBuilder().setStringValue(value))
                .build();
    }

    @Benchmark
    public Object decode() throws Exception {
        return decoder.decode("AAAAAAAAAAAAAAAAAAAAAQ", 0L, ByteBuffer.wrap(push));
    }
}
