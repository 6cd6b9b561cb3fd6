package io.tcpsight.internal.kafka;

import io.tcpsight.internal.model.ProduceTraffic;
import io.tcpsight.internal.model.ProduceTrafficCounter;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * What a producer sent each broker between two rounds, from its own metrics: the node's
 * {@code request-total} and {@code outgoing-byte-total} ({@code producer-node-metrics}), and the
 * partitions a request carries, as the client's {@code request-size-avg} over its
 * {@code batch-size-avg} ({@code producer-metrics}), and what its records hold of its
 * buffer.memory ({@code buffer-total-bytes}, {@code buffer-available-bytes}), which no broker can see. These are the counts the broker agent reads
 * off the wire, seen from the producer, so the same rule judges both ends. Holds one entry per
 * broker the client has metrics for.
 */
public final class ProducerRequestCounts {
    private static final String NODE_GROUP = "producer-node-metrics";
    private static final String CLIENT_GROUP = "producer-metrics";
    private static final String REQUESTS = "request-total";
    private static final String BYTES = "outgoing-byte-total";
    private static final String REQUEST_SIZE = "request-size-avg";
    private static final String BATCH_SIZE = "batch-size-avg";
    private static final String BUFFER_TOTAL = "buffer-total-bytes";
    private static final String BUFFER_AVAILABLE = "buffer-available-bytes";

    private final ClientMetricTable metrics =
            new ClientMetricTable(name -> name.group().equals(NODE_GROUP)
                            && (name.name().equals(REQUESTS) || name.name().equals(BYTES))
                    || name.group().equals(CLIENT_GROUP)
                            && (name.name().equals(REQUEST_SIZE)
                                    || name.name().equals(BATCH_SIZE)
                                    || name.name().equals(BUFFER_TOTAL)
                                    || name.name().equals(BUFFER_AVAILABLE)));
    // The sampler thread only:
    private final ProduceTrafficCounter counter = new ProduceTrafficCounter();
    private volatile Map<String, ProduceTraffic> lastRound = Map.of();

    public void metric(KafkaMetric metric) {
        metrics.metric(metric);
    }

    public void removed(KafkaMetric metric) {
        metrics.removed(metric);
    }

    /** Takes the counts at the start of a round: each broker's traffic since the last one. */
    public void round(long nowNanos) {
        Integer partitions = ProduceTrafficCounter.partitionsPerRequest(
                metrics.clientWide(REQUEST_SIZE), metrics.clientWide(BATCH_SIZE));
        double total = metrics.clientWide(BUFFER_TOTAL);
        double available = metrics.clientWide(BUFFER_AVAILABLE);
        Map<String, ProduceTraffic> traffic = new HashMap<>();
        counter.next(metrics.byNode(REQUESTS, BYTES), node -> partitions, nowNanos)
                .forEach((node, seen) -> traffic.put(node, seen.withBuffer(total, available)));
        lastRound = Map.copyOf(traffic);
    }

    /** The broker's traffic in the interval before this round; empty before two rounds or for another node. */
    public Optional<ProduceTraffic> toNode(String node) {
        return Optional.ofNullable(lastRound.get(node));
    }
}
