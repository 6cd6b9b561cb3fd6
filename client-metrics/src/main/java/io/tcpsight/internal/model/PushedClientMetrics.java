package io.tcpsight.internal.model;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * What a client said of itself in its last telemetry push (KIP-714), as the broker received it on
 * one connection: its client instance id and the few of its own metrics the rules read. A client
 * pushes every metric its subscription names; only {@link Figure}'s are kept, so one push costs a
 * connection the same few fields whatever the client sent.
 */
public final class PushedClientMetrics {
    /**
     * The client's own figures the rules read, each under its KIP-714 name (the Java client's
     * metric group and name, dotted; librdkafka pushes the same names). A per-broker figure is read
     * for the broker that received the push.
     */
    public enum Figure {
        /** How long records waited in the producer's queue before they were sent, on average. */
        RECORD_QUEUE_TIME_AVG_MS("org.apache.kafka.producer.record.queue.time.avg", false, "recordQueueTimeAvgMs"),
        /** The producer's batches, in bytes, on average. */
        BATCH_SIZE_AVG_BYTES("org.apache.kafka.producer.batch.size.avg", false, "batchSizeAvgBytes"),
        /** The share of time the producer's send() waited for buffer.memory. */
        BUFFERPOOL_WAIT_RATIO("org.apache.kafka.producer.bufferpool.wait.ratio", false, "bufferpoolWaitRatio"),
        /** The producer's buffer.memory, as its gauge says. */
        BUFFER_TOTAL_BYTES("org.apache.kafka.producer.buffer.total.bytes", false, "bufferTotalBytes"),
        /** What of it no record holds: what buffer.memory has left for send(). */
        BUFFER_AVAILABLE_BYTES("org.apache.kafka.producer.buffer.available.bytes", false, "bufferAvailableBytes"),
        /** The producer's request latency to this broker, on average. */
        PRODUCER_REQUEST_LATENCY_AVG_MS(
                "org.apache.kafka.producer.node.request.latency.avg", true, "producerRequestLatencyAvgMs"),
        /** The bytes a second the producer sends to this broker, as it counts them. */
        PRODUCER_OUTGOING_BYTE_RATE(
                "org.apache.kafka.producer.node.outgoing.byte.rate", true, "producerOutgoingByteRate"),
        /** The consumer's fetch latency, on average. */
        FETCH_LATENCY_AVG_MS("org.apache.kafka.consumer.fetch.manager.fetch.latency.avg", false, "fetchLatencyAvgMs"),
        /** The consumer's largest lag, in records, over its partitions. */
        RECORDS_LAG_MAX("org.apache.kafka.consumer.fetch.manager.records.lag.max", false, "recordsLagMax"),
        /** The bytes a second the consumer reads from this broker's node connection, as it counts them. */
        CONSUMER_INCOMING_BYTE_RATE(
                "org.apache.kafka.consumer.node.incoming.byte.rate", true, "consumerIncomingByteRate"),
        /**
         * The bytes a second it reads from every other broker together: the points of the other brokers' node ids,
         * not its bootstrap connections (negative ids) nor its group coordinator's (Integer.MAX_VALUE less the
         * broker's id), which Kafka counts as nodes of their own.
         */
        CONSUMER_INCOMING_BYTE_RATE_OTHER_BROKERS(
                "org.apache.kafka.consumer.node.incoming.byte.rate",
                false,
                "consumerIncomingByteRateOtherBrokers",
                true),
        /** The share of the time the consumer's poll() waited for records rather than for the application. */
        POLL_IDLE_RATIO_AVG("org.apache.kafka.consumer.poll.idle.ratio.avg", false, "pollIdleRatioAvg");

        private final String pushedName;
        private final boolean perBroker;
        private final String field;
        private final boolean otherBrokersSummed;

        Figure(String pushedName, boolean perBroker, String field) {
            this(pushedName, perBroker, field, false);
        }

        Figure(String pushedName, boolean perBroker, String field, boolean otherBrokersSummed) {
            this.pushedName = pushedName;
            this.perBroker = perBroker;
            this.field = field;
            this.otherBrokersSummed = otherBrokersSummed;
        }

        /** Whether this is the sum of the other brokers' points (a node_id attribute on each). */
        public boolean otherBrokersSummed() {
            return otherBrokersSummed;
        }

        /** The metric's name in the push. */
        public String pushedName() {
            return pushedName;
        }

        /** Whether the client pushes it once per broker (a node_id attribute), and this broker's is the one read. */
        public boolean perBroker() {
            return perBroker;
        }

        /** Its name in tcpsight's JSON. */
        public String field() {
            return field;
        }

        /** The figures read from the metric pushed under this name: none, one, or (per node) two. */
        public static List<Figure> ofPushedName(String name) {
            return BY_PUSHED_NAME.getOrDefault(name, List.of());
        }
    }

    /**
     * Each kept metric's figures, looked up once a metric of a push (a push names a few hundred): built
     * once, not a scan of every figure for each.
     */
    private static final Map<String, List<Figure>> BY_PUSHED_NAME = byPushedName();

    private static Map<String, List<Figure>> byPushedName() {
        Map<String, List<Figure>> byName = new HashMap<>();
        for (Figure figure : Figure.values()) {
            byName.computeIfAbsent(figure.pushedName(), name -> new ArrayList<>())
                    .add(figure);
        }
        byName.replaceAll((name, figures) -> List.copyOf(figures));
        return Map.copyOf(byName);
    }

    /**
     * A push within this long tells what the client does now: the documented subscription pushes
     * every 30 s, so three of its intervals. An older one is not read by any rule.
     */
    public static final long FRESH_NANOS = 90_000_000_000L;

    private final String clientInstanceId;
    private final long receivedNanos;
    private final EnumMap<Figure, Double> figures;
    /** The lag the same client pushed on the same connection the time before, or null. */
    private final Double earlierLag;

    private final long earlierReceivedNanos;

    /**
     * @param clientInstanceId the id the client pushed under (a Kafka Uuid's text)
     * @param receivedNanos when the broker received the push ({@link System#nanoTime()})
     * @param figures the kept figures the push carried; a finite value each
     */
    public PushedClientMetrics(String clientInstanceId, long receivedNanos, Map<Figure, Double> figures) {
        this(clientInstanceId, receivedNanos, kept(figures), null, 0);
    }

    private PushedClientMetrics(
            String clientInstanceId,
            long receivedNanos,
            EnumMap<Figure, Double> figures,
            Double earlierLag,
            long earlierReceivedNanos) {
        this.clientInstanceId = Objects.requireNonNull(clientInstanceId, "clientInstanceId");
        this.receivedNanos = receivedNanos;
        this.figures = figures;
        this.earlierLag = earlierLag;
        this.earlierReceivedNanos = earlierReceivedNanos;
    }

    private static EnumMap<Figure, Double> kept(Map<Figure, Double> figures) {
        EnumMap<Figure, Double> kept = new EnumMap<>(Figure.class);
        figures.forEach((figure, value) -> {
            if (value != null && Double.isFinite(value)) {
                kept.put(figure, value);
            }
        });
        return kept;
    }

    /**
     * This push as the one after {@code earlier} on the same connection: it keeps the earlier
     * push's lag (one number), so that whether the lag grows is known from two of the client's
     * own readings. A push of another client instance, none, or one more than {@link #FRESH_NANOS}
     * earlier starts afresh.
     */
    public PushedClientMetrics following(PushedClientMetrics earlier) {
        if (earlier == null
                || !earlier.clientInstanceId.equals(clientInstanceId)
                || earlier.receivedNanos >= receivedNanos
                || receivedNanos - earlier.receivedNanos > FRESH_NANOS) {
            return this; // another client, not earlier, or so long ago that a growth over the gap would say little
        }
        Double lag = earlier.figures.get(Figure.RECORDS_LAG_MAX);
        return lag == null
                ? this
                : new PushedClientMetrics(clientInstanceId, receivedNanos, figures, lag, earlier.receivedNanos);
    }

    /** Whether this push came within {@link #FRESH_NANOS} of {@code nowNanos}. */
    public boolean freshAt(long nowNanos) {
        return nowNanos - receivedNanos <= FRESH_NANOS;
    }

    /**
     * How much the consumer's largest lag grew, in records a second, from the push before this one
     * to this one; empty unless both carried it.
     */
    public OptionalDouble lagGrowthPerSecond() {
        Double lag = figures.get(Figure.RECORDS_LAG_MAX);
        if (lag == null || earlierLag == null) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of((lag - earlierLag) / ((receivedNanos - earlierReceivedNanos) / 1e9));
    }

    public String clientInstanceId() {
        return clientInstanceId;
    }

    public long receivedNanos() {
        return receivedNanos;
    }

    /** The figure's value in the push, if the client pushed it. */
    public OptionalDouble figure(Figure figure) {
        Double value = figures.get(figure);
        return value == null ? OptionalDouble.empty() : OptionalDouble.of(value);
    }

    /** The figures the push carried, in {@link Figure}'s order. */
    public Map<Figure, Double> figures() {
        return new EnumMap<>(figures);
    }

    @Override
    public String toString() {
        return "PushedClientMetrics{" + clientInstanceId + " " + figures + "}";
    }
}
