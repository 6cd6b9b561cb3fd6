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
import java.util.List;
import java.util.Map;

/**
 * Reads a client's telemetry push (an OTLP {@code MetricsData}, as Kafka hands it on: already
 * decompressed) with OpenTelemetry's own generated classes, and keeps the few figures the rules
 * read. Of each figure the newest data point counts; a per-broker figure only where its
 * {@code node_id} attribute names this broker (the Java client writes "node-1", librdkafka the
 * number).
 */
public final class OtlpPushDecoder {
    private final int brokerNodeId;
    private final String nodeIdNumber;
    private final String nodeIdName;

    /** @param brokerNodeId this broker's node.id; below 0 when unknown, so no per-broker figure is read */
    public OtlpPushDecoder(int brokerNodeId) {
        this.brokerNodeId = brokerNodeId;
        this.nodeIdNumber = brokerNodeId < 0 ? null : Integer.toString(brokerNodeId);
        this.nodeIdName = brokerNodeId < 0 ? null : "node-" + brokerNodeId;
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
            double value;
            switch (point.getValueCase()) {
                case AS_DOUBLE:
                    value = point.getAsDouble();
                    break;
                case AS_INT:
                    value = point.getAsInt();
                    break;
                default:
                    continue;
            }
            Long seen = newest.get(figure);
            if (Double.isFinite(value) && (seen == null || point.getTimeUnixNano() >= seen)) {
                newest.put(figure, point.getTimeUnixNano());
                figures.put(figure, value);
            }
        }
    }

    /**
     * The sum over the points of every node but this broker: one point a node in a push (Kafka's
     * per-node sensors), so the sum is what the client reads from all its other connections. Absent
     * where the push has no point of another node.
     */
    private void sumOtherBrokers(Figure figure, List<NumberDataPoint> points, Map<Figure, Double> figures) {
        for (NumberDataPoint point : points) {
            if (nodeIdNumber == null
                    || !namesANode(point.getAttributesList())
                    || namesThisBroker(point.getAttributesList())) {
                continue;
            }
            double value = point.getValueCase() == NumberDataPoint.ValueCase.AS_INT
                    ? point.getAsInt()
                    : point.getValueCase() == NumberDataPoint.ValueCase.AS_DOUBLE ? point.getAsDouble() : Double.NaN;
            if (Double.isFinite(value)) {
                figures.merge(figure, value, Double::sum);
            }
        }
    }

    private static boolean namesANode(List<KeyValue> attributes) {
        for (KeyValue attribute : attributes) {
            if (attribute.getKey().equals("node_id") || attribute.getKey().equals("node.id")) {
                return true;
            }
        }
        return false;
    }

    private boolean namesThisBroker(List<KeyValue> attributes) {
        if (nodeIdNumber == null) {
            return false;
        }
        for (KeyValue attribute : attributes) {
            if (attribute.getKey().equals("node_id") || attribute.getKey().equals("node.id")) {
                AnyValue value = attribute.getValue();
                String text = value.hasIntValue()
                        ? Long.toString(value.getIntValue())
                        : value.hasStringValue() ? value.getStringValue() : "";
                return text.equals(nodeIdNumber) || text.equals(nodeIdName);
            }
        }
        return false;
    }
}
