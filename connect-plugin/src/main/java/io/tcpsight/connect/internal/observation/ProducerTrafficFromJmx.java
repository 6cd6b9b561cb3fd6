package io.tcpsight.connect.internal.observation;

import io.tcpsight.internal.model.ProduceTraffic;
import io.tcpsight.internal.model.ProduceTrafficCounter;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * What each of the worker's producers (source tasks, MirrorMaker 2's) sent each broker between two
 * rounds, from the producers' own metrics in JMX: a node's {@code request-total} and
 * {@code outgoing-byte-total}, and the partitions a request carries as the producer's
 * {@code request-size-avg} over its {@code batch-size-avg}, and what its records hold of its
 * buffer.memory ({@code buffer-total-bytes}, {@code buffer-available-bytes}). The same counts the reporter reads in a
 * producer's JVM, so the same rule judges a task's producer on the worker's end.
 */
final class ProducerTrafficFromJmx {
    private static final String NODES = "kafka.producer:type=producer-node-metrics,*";
    private static final String CLIENTS = "kafka.producer:type=producer-metrics,*";
    private static final String[] NODE_ATTRIBUTES = {"request-total", "outgoing-byte-total"};
    private static final String[] CLIENT_ATTRIBUTES = {"request-size-avg", "batch-size-avg"};
    private static final String[] BUFFER_ATTRIBUTES = {"buffer-total-bytes", "buffer-available-bytes"};

    private final MBeanServer server;
    // The sampler thread only:
    private final ProduceTrafficCounter counter = new ProduceTrafficCounter();
    private volatile Map<String, ProduceTraffic> lastRound = Map.of();

    ProducerTrafficFromJmx() {
        this(ManagementFactory.getPlatformMBeanServer());
    }

    ProducerTrafficFromJmx(MBeanServer server) {
        this.server = server;
    }

    /** Takes the counts at the start of a round: each producer connection's traffic since the last one. */
    void round(long nowNanos) {
        Map<String, long[]> totals = new HashMap<>();
        Map<String, Integer> partitions = new HashMap<>();
        Map<String, double[]> buffers = new HashMap<>();
        try {
            for (ObjectName name : server.queryNames(new ObjectName(NODES), null)) {
                String clientId = ClientNodeMetrics.unquote(name.getKeyProperty("client-id"));
                String node = ClientNodeMetrics.unquote(name.getKeyProperty("node-id"));
                double[] values = read(name, NODE_ATTRIBUTES);
                if (clientId != null && node != null && node.startsWith("node-") && values != null) {
                    totals.put(
                            key(clientId, node.substring("node-".length())),
                            new long[] {(long) values[0], (long) values[1]});
                }
            }
            for (ObjectName name : server.queryNames(new ObjectName(CLIENTS), null)) {
                String clientId = ClientNodeMetrics.unquote(name.getKeyProperty("client-id"));
                double[] values = read(name, CLIENT_ATTRIBUTES);
                if (clientId != null && values != null) {
                    Integer perRequest = ProduceTrafficCounter.partitionsPerRequest(values[0], values[1]);
                    if (perRequest != null) {
                        partitions.put(clientId, perRequest);
                    }
                }
                double[] buffer = clientId == null ? null : read(name, BUFFER_ATTRIBUTES);
                if (buffer != null) {
                    buffers.put(clientId, buffer);
                }
            }
        } catch (JMException | RuntimeException unreadable) {
            // a producer closed between query and read; its counts start again at the next round
        }
        Map<String, ProduceTraffic> traffic = new HashMap<>();
        counter.next(totals, connection -> partitions.get(clientOf(connection)), nowNanos)
                .forEach((connection, seen) -> {
                    double[] buffer = buffers.get(clientOf(connection));
                    traffic.put(connection, buffer == null ? seen : seen.withBuffer(buffer[0], buffer[1]));
                });
        lastRound = Map.copyOf(traffic);
    }

    private static String clientOf(String connection) {
        return connection.substring(0, connection.lastIndexOf('/'));
    }

    /** The producer's traffic to that broker in the interval before this round; empty when none was counted. */
    Optional<ProduceTraffic> of(String clientId, String nodeId) {
        return Optional.ofNullable(lastRound.get(key(clientId, nodeId)));
    }

    private static String key(String clientId, String nodeId) {
        return clientId + "/" + nodeId;
    }

    /** The attributes' values, or null when one is missing or not a number yet. */
    private double[] read(ObjectName name, String[] attributes) throws JMException {
        AttributeList list = server.getAttributes(name, attributes);
        double[] values = new double[attributes.length];
        int found = 0;
        for (Attribute attribute : list.asList()) {
            if (attribute.getValue() instanceof Number) {
                double value = ((Number) attribute.getValue()).doubleValue();
                if (Double.isNaN(value)) {
                    continue;
                }
                for (int i = 0; i < attributes.length; i++) {
                    if (attributes[i].equals(attribute.getName())) {
                        values[i] = value;
                        found++;
                    }
                }
            }
        }
        return found == attributes.length ? values : null;
    }
}
