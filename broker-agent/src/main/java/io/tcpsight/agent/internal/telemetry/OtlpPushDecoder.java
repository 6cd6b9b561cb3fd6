package io.tcpsight.agent.internal.telemetry;

import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.MetricsData;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.tcpsight.internal.model.PushedClientMetrics;
import io.tcpsight.internal.model.PushedClientMetrics.Figure;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Reads a client's telemetry push (an OTLP {@code MetricsData}, as Kafka hands it on: already
 * decompressed) with OpenTelemetry's own generated classes, and keeps the few figures the rules
 * read. Of each figure the newest data point counts; a per-broker figure only where its
 * {@code node_id} attribute names this broker (the Java client writes "node-1", librdkafka the
 * number).
 */
public final class OtlpPushDecoder {
    private final int brokerNodeId;

    /** @param brokerNodeId this broker's node.id; below 0 when unknown, so no per-broker figure is read */
    public OtlpPushDecoder(int brokerNodeId) {
        this.brokerNodeId = brokerNodeId;
    }

    /** The node.id whose per-broker figures this decoder reads; below 0 for none. */
    public int brokerNodeId() {
        return brokerNodeId;
    }

    /**
     * The figures in one push.
     *
     * @throws InvalidProtocolBufferException when the bytes are not an OTLP MetricsData
     */
    public PushedClientMetrics decode(String clientInstanceId, long receivedNanos, ByteBuffer data)
            throws InvalidProtocolBufferException {
        MetricsData metrics = MetricsData.parseFrom(data.duplicate());
        Map<Figure, Double> figures = new EnumMap<>(Figure.class);
        Map<Figure, Long> newest = new EnumMap<>(Figure.class);
        for (ResourceMetrics resource : metrics.getResourceMetricsList()) {
            for (ScopeMetrics scope : resource.getScopeMetricsList()) {
                for (Metric metric : scope.getMetricsList()) {
                    for (Figure figure : Figure.ofPushedName(metric.getName())) {
                        if (figure.otherBrokersSummed()) {
                            sumOtherBrokers(figure, points(metric), figures);
                        } else {
                            read(figure, points(metric), figures, newest);
                        }
                    }
                }
            }
        }
        return new PushedClientMetrics(clientInstanceId, receivedNanos, figures);
    }

    private static List<NumberDataPoint> points(Metric metric) {
        switch (metric.getDataCase()) {
            case GAUGE:
                return metric.getGauge().getDataPointsList();
            case SUM:
                return metric.getSum().getDataPointsList();
            default:
                return List.of(); // a histogram or summary: none of the kept figures is one
        }
    }

    private void read(
            Figure figure, List<NumberDataPoint> points, Map<Figure, Double> figures, Map<Figure, Long> newest) {
        for (NumberDataPoint point : points) {
            if (figure.perBroker() && !namesThisBroker(point.getAttributesList())) {
                continue;
            }
            double value = valueOf(point);
            Long seen = newest.get(figure);
            if (Double.isFinite(value) && (seen == null || point.getTimeUnixNano() >= seen)) {
                newest.put(figure, point.getTimeUnixNano());
                figures.put(figure, value);
            }
        }
    }

    /**
     * The sum over the other brokers' points, the newest of each: what the client reads from all its
     * connections to other brokers. A node id that is no broker's is left out: a bootstrap
     * connection's (negative) and a group coordinator's (Integer.MAX_VALUE less the broker's id).
     * Absent where the push has no point of another broker.
     */
    private void sumOtherBrokers(Figure figure, List<NumberDataPoint> points, Map<Figure, Double> figures) {
        if (brokerNodeId < 0) {
            return;
        }
        Map<Long, NumberDataPoint> newestByBroker = new HashMap<>();
        for (NumberDataPoint point : points) {
            OptionalLong node = nodeId(point.getAttributesList());
            if (node.isEmpty()
                    || node.getAsLong() < 0
                    || node.getAsLong() > Integer.MAX_VALUE / 2
                    || node.getAsLong() == brokerNodeId) {
                continue;
            }
            newestByBroker.merge(
                    node.getAsLong(),
                    point,
                    (kept, other) -> other.getTimeUnixNano() >= kept.getTimeUnixNano() ? other : kept);
        }
        for (NumberDataPoint point : newestByBroker.values()) {
            double value = valueOf(point);
            if (Double.isFinite(value)) {
                figures.merge(figure, value, Double::sum);
            }
        }
    }

    /** The node id a point names ("node-2" as the Java client writes it, 2 as librdkafka does), if any. */
    private static OptionalLong nodeId(List<KeyValue> attributes) {
        for (KeyValue attribute : attributes) {
            if (attribute.getKey().equals("node_id") || attribute.getKey().equals("node.id")) {
                AnyValue value = attribute.getValue();
                if (value.hasIntValue()) {
                    return OptionalLong.of(value.getIntValue());
                }
                String text = value.hasStringValue() ? value.getStringValue() : "";
                String number = text.startsWith("node-") ? text.substring("node-".length()) : text;
                try {
                    return OptionalLong.of(Long.parseLong(number));
                } catch (NumberFormatException notANode) {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }

    /** Whether the point's node id is this broker's ("node-1" or 1 at broker 1). */
    private boolean namesThisBroker(List<KeyValue> attributes) {
        OptionalLong node = nodeId(attributes);
        return brokerNodeId >= 0 && node.isPresent() && node.getAsLong() == brokerNodeId;
    }

    /** The point's value; NaN for a kind none of the kept figures is (a finite value is kept, no other). */
    private static double valueOf(NumberDataPoint point) {
        switch (point.getValueCase()) {
            case AS_DOUBLE:
                return point.getAsDouble();
            case AS_INT:
                return point.getAsInt();
            default:
                return Double.NaN;
        }
    }
}
