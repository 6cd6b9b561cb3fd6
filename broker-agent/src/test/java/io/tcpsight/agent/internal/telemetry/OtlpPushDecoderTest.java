package io.tcpsight.agent.internal.telemetry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.MetricsData;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.tcpsight.internal.model.PushedClientMetrics;
import io.tcpsight.internal.model.PushedClientMetrics.Figure;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A push as OTLP's own classes write it, read back to the figures the rules use. */
class OtlpPushDecoderTest {
    private static final String INSTANCE = "AAAAAAAAAAAAAAAAAAAAAQ";

    @Test
    void keepsTheRulesFiguresAndThisBrokersPerBrokerOneOfAJavaProducersPush() throws Exception {
        MetricsData push = push(
                gauge("org.apache.kafka.producer.record.queue.time.avg", point(85.1, 10)),
                gauge("org.apache.kafka.producer.batch.size.avg", point(15019.0, 10)),
                gauge("org.apache.kafka.producer.bufferpool.wait.ratio", point(0.0, 10)),
                // the Java client writes node-N; the other broker's figure is not this one's
                gauge(
                        "org.apache.kafka.producer.node.request.latency.avg",
                        point(104.2, 10, "node_id", "node-1"),
                        point(3.5, 10, "node_id", "node-2")),
                gauge("org.apache.kafka.producer.record.send.rate", point(99.0, 10)),
                Metric.newBuilder()
                        .setName("org.apache.kafka.producer.batch.size.avg")
                        .setHistogram(Histogram.newBuilder().addDataPoints(HistogramDataPoint.newBuilder()))
                        .build());

        PushedClientMetrics read = new OtlpPushDecoder(1).decode(INSTANCE, 7L, ByteBuffer.wrap(push.toByteArray()));

        Map<Figure, Double> expected = new EnumMap<>(Figure.class);
        expected.put(Figure.RECORD_QUEUE_TIME_AVG_MS, 85.1);
        expected.put(Figure.BATCH_SIZE_AVG_BYTES, 15019.0);
        expected.put(Figure.BUFFERPOOL_WAIT_RATIO, 0.0);
        expected.put(Figure.PRODUCER_REQUEST_LATENCY_AVG_MS, 104.2);
        assertEquals(expected, read.figures());
        assertEquals(INSTANCE, read.clientInstanceId());
        assertEquals(7L, read.receivedNanos());
    }

    @Test
    void theNewestPointCountsAndAnIntegerNodeIdNamesTheBrokerAsLibrdkafkaWritesIt() throws Exception {
        MetricsData push = push(
                Metric.newBuilder()
                        .setName("org.apache.kafka.consumer.fetch.manager.records.lag.max")
                        .setSum(Sum.newBuilder()
                                .addDataPoints(NumberDataPoint.newBuilder()
                                        .setAsInt(12)
                                        .setTimeUnixNano(20))
                                .addDataPoints(NumberDataPoint.newBuilder()
                                        .setAsInt(4000)
                                        .setTimeUnixNano(30))
                                .addDataPoints(
                                        NumberDataPoint.newBuilder().setAsInt(7).setTimeUnixNano(25)))
                        .build(),
                Metric.newBuilder()
                        .setName("org.apache.kafka.producer.node.request.latency.avg")
                        .setGauge(Gauge.newBuilder()
                                .addDataPoints(NumberDataPoint.newBuilder()
                                        .setAsDouble(51.0)
                                        .setTimeUnixNano(5)
                                        .addAttributes(KeyValue.newBuilder()
                                                .setKey("node_id")
                                                .setValue(AnyValue.newBuilder().setIntValue(3)))))
                        .build());

        PushedClientMetrics read = new OtlpPushDecoder(3).decode(INSTANCE, 0L, ByteBuffer.wrap(push.toByteArray()));

        assertEquals(4000.0, read.figure(Figure.RECORDS_LAG_MAX).getAsDouble());
        assertEquals(51.0, read.figure(Figure.PRODUCER_REQUEST_LATENCY_AVG_MS).getAsDouble());
    }

    @Test
    void anotherBrokersFigureIsNotThisOnes() throws Exception {
        MetricsData push =
                push(gauge("org.apache.kafka.producer.node.request.latency.avg", point(3.5, 10, "node_id", "node-2")));

        PushedClientMetrics read = new OtlpPushDecoder(1).decode(INSTANCE, 0L, ByteBuffer.wrap(push.toByteArray()));

        assertEquals(Map.of(), read.figures());
    }

    @Test
    void withoutItsOwnNodeIdTheBrokerReadsNoPerBrokerFigure() throws Exception {
        MetricsData push = push(
                gauge("org.apache.kafka.producer.node.request.latency.avg", point(104.2, 10, "node_id", "node-1")));

        PushedClientMetrics read = new OtlpPushDecoder(-1).decode(INSTANCE, 0L, ByteBuffer.wrap(push.toByteArray()));

        assertEquals(Map.of(), read.figures());
    }

    @Test
    void aConsumersBytesFromThisBrokerAndFromEachOtherBrokerTogether() throws Exception {
        // a Java consumer's per-node sensors: this broker's node connection, its bootstrap connection (node -1) and
        // its group coordinator's (Integer.MAX_VALUE - 1), both at this broker and no broker's node; broker 2 twice
        // (the
        // newer point counts), broker 3 with an integer node id as librdkafka writes one, and a point naming no node
        NumberDataPoint brokerThree = NumberDataPoint.newBuilder()
                .setAsDouble(500.0)
                .setTimeUnixNano(10)
                .addAttributes(KeyValue.newBuilder()
                        .setKey("node_id")
                        .setValue(AnyValue.newBuilder().setIntValue(3)))
                .build();
        MetricsData push = push(gauge(
                "org.apache.kafka.consumer.node.incoming.byte.rate",
                point(650_000.0, 10, "node_id", "node-1"),
                point(12.0, 10, "node_id", "node--1"),
                point(30.0, 10, "node_id", "node-2147483646"),
                point(9_999.0, 5, "node_id", "node-2"),
                point(1_000.0, 10, "node_id", "node-2"),
                brokerThree,
                point(77.0, 10)));

        PushedClientMetrics read = new OtlpPushDecoder(1).decode(INSTANCE, 0L, ByteBuffer.wrap(push.toByteArray()));

        assertEquals(650_000.0, read.figure(Figure.CONSUMER_INCOMING_BYTE_RATE).getAsDouble());
        assertEquals(
                1_500.0,
                read.figure(Figure.CONSUMER_INCOMING_BYTE_RATE_OTHER_BROKERS).getAsDouble());
        // at broker 2 the same push reads the other way round
        PushedClientMetrics atTwo = new OtlpPushDecoder(2).decode(INSTANCE, 0L, ByteBuffer.wrap(push.toByteArray()));
        assertEquals(1_000.0, atTwo.figure(Figure.CONSUMER_INCOMING_BYTE_RATE).getAsDouble());
        assertEquals(
                650_500.0,
                atTwo.figure(Figure.CONSUMER_INCOMING_BYTE_RATE_OTHER_BROKERS).getAsDouble());
        // a broker that does not know its own node.id cannot tell which is its own: neither
        PushedClientMetrics unknown = new OtlpPushDecoder(-1).decode(INSTANCE, 0L, ByteBuffer.wrap(push.toByteArray()));
        assertEquals(Map.of(), unknown.figures());
    }

    @Test
    void aConsumerThatReadsOnlyFromThisBrokerHasNoOtherBrokersFigure() throws Exception {
        // its bootstrap and coordinator connections at this broker are no other broker's
        MetricsData push = push(gauge(
                "org.apache.kafka.consumer.node.incoming.byte.rate",
                point(650_000.0, 10, "node_id", "node-1"),
                point(12.0, 10, "node_id", "node--1"),
                point(30.0, 10, "node_id", "node-2147483646")));

        PushedClientMetrics read = new OtlpPushDecoder(1).decode(INSTANCE, 0L, ByteBuffer.wrap(push.toByteArray()));

        assertEquals(Map.of(Figure.CONSUMER_INCOMING_BYTE_RATE, 650_000.0), read.figures());
    }

    @Test
    void bytesThatAreNotOtlpAreRefused() {
        byte[] notOtlp = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 0x01};
        assertThrows(InvalidProtocolBufferException.class, () -> new OtlpPushDecoder(1)
                .decode(INSTANCE, 0L, ByteBuffer.wrap(notOtlp)));
    }

    static MetricsData push(Metric... metrics) {
        return MetricsData.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .addScopeMetrics(ScopeMetrics.newBuilder().addAllMetrics(List.of(metrics))))
                .build();
    }

    static Metric gauge(String name, NumberDataPoint... points) {
        return Metric.newBuilder()
                .setName(name)
                .setGauge(Gauge.newBuilder().addAllDataPoints(List.of(points)))
                .build();
    }

    static NumberDataPoint point(double value, long timeNanos, String... attributes) {
        NumberDataPoint.Builder point =
                NumberDataPoint.newBuilder().setAsDouble(value).setTimeUnixNano(timeNanos);
        for (int i = 0; i < attributes.length; i += 2) {
            point.addAttributes(KeyValue.newBuilder()
                    .setKey(attributes[i])
                    .setValue(AnyValue.newBuilder().setStringValue(attributes[i + 1])));
        }
        return point.build();
    }
}
