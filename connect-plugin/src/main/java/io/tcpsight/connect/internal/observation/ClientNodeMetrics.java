package io.tcpsight.connect.internal.observation;

import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ClientConnectionIds;
import io.tcpsight.internal.sampling.ByteCountAttribution;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Reads every Kafka client's per-connection byte totals from JMX (Kafka's JmxReporter, on by
 * default): {@code kafka.consumer:type=consumer-node-metrics,client-id=...,node-id=node-N} and
 * the same for producers, admin clients and the worker's group member.
 */
public final class ClientNodeMetrics {
    /** Each client type's node metrics and what its connections carry (the worker's group member: heartbeats). */
    private static final Map<String, BulkFlow> PATTERNS = Map.of(
            "kafka.consumer:type=consumer-node-metrics,*", BulkFlow.TO_CLIENT,
            "kafka.producer:type=producer-node-metrics,*", BulkFlow.TO_BROKER,
            "kafka.admin.client:type=admin-client-node-metrics,*", BulkFlow.NONE,
            "kafka.connect:type=connect-node-metrics,*", BulkFlow.NONE);

    private static final String[] ATTRIBUTES = {"incoming-byte-total", "outgoing-byte-total"};

    private ClientNodeMetrics() {}

    static List<ByteCountAttribution.ClientConnection> read() {
        return read(ManagementFactory.getPlatformMBeanServer());
    }

    static List<ByteCountAttribution.ClientConnection> read(MBeanServer server) {
        List<ByteCountAttribution.ClientConnection> connections = new ArrayList<>();
        for (Map.Entry<String, BulkFlow> pattern : PATTERNS.entrySet()) {
            try {
                for (ObjectName name : server.queryNames(new ObjectName(pattern.getKey()), null)) {
                    String clientId = unquote(name.getKeyProperty("client-id"));
                    String node = unquote(name.getKeyProperty("node-id"));
                    if (clientId == null || node == null || !node.startsWith("node-")) {
                        continue;
                    }
                    AttributeList values = server.getAttributes(name, ATTRIBUTES);
                    Double read = null;
                    Double written = null;
                    for (Attribute attribute : values.asList()) {
                        if (attribute.getValue() instanceof Number) {
                            double value = ((Number) attribute.getValue()).doubleValue();
                            if (attribute.getName().equals(ATTRIBUTES[0])) {
                                read = value;
                            } else {
                                written = value;
                            }
                        }
                    }
                    if (read != null && written != null) {
                        String connectionId = node.substring("node-".length());
                        connections.add(new ByteCountAttribution.ClientConnection(
                                name.getKeyProperty("type"),
                                clientId,
                                connectionId,
                                read.longValue(),
                                written.longValue(),
                                ClientConnectionIds.flow(
                                        BulkFlow.forClient(clientId, pattern.getValue()), connectionId)));
                    }
                }
            } catch (JMException | RuntimeException gone) {
                // a client closed between query and read; the next round sees the rest
            }
        }
        return connections;
    }

    /** A client-id key property as the client set it (JMX quotes values with special characters). */
    public static String unquote(String value) {
        return value != null && value.startsWith("\"") ? ObjectName.unquote(value) : value;
    }
}
