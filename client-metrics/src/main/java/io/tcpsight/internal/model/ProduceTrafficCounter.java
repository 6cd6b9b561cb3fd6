package io.tcpsight.internal.model;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A producer's cumulative request and byte counts per connection (its metrics'
 * {@code request-total} and {@code outgoing-byte-total} of a node), turned into each interval's
 * {@link ProduceTraffic}: the counts the broker agent reads off the wire, seen from the producer.
 * A count that went down (a new client under the same name) starts again; a connection needs two
 * readings. Holds one entry per connection it was last given.
 */
public final class ProduceTrafficCounter {
    private final Map<String, long[]> previous = new HashMap<>();
    private long previousNanos;

    /**
     * @param totals each connection's {requests, bytes} now; negative where unknown
     * @param partitionsPerRequest each connection's partitions a request carries, or null
     * @return each connection's traffic since the previous call
     */
    public Map<String, ProduceTraffic> next(
            Map<String, long[]> totals, Function<String, Integer> partitionsPerRequest, long nowNanos) {
        Map<String, ProduceTraffic> traffic = new HashMap<>();
        double seconds = (nowNanos - previousNanos) / 1e9;
        totals.forEach((connection, now) -> {
            long[] before = previous.get(connection);
            if (before != null && now[0] >= before[0] && now[1] >= before[1] && seconds > 0) {
                traffic.put(
                        connection,
                        new ProduceTraffic(
                                now[0] - before[0],
                                now[1] - before[1],
                                seconds,
                                partitionsPerRequest.apply(connection)));
            }
        });
        previous.clear();
        totals.forEach((connection, now) -> {
            if (now[0] >= 0 && now[1] >= 0) {
                previous.put(connection, now.clone());
            }
        });
        previousNanos = nowNanos;
        return traffic;
    }

    /**
     * The partitions a request carries: a request holds a batch of each, so the client's mean
     * request size over its mean batch size; null until the client has sent one.
     */
    public static Integer partitionsPerRequest(double requestSizeAvg, double batchSizeAvg) {
        if (!(requestSizeAvg > 0) || !(batchSizeAvg > 0)) {
            return null;
        }
        return (int) Math.max(1, Math.round(requestSizeAvg / batchSizeAvg));
    }
}
