package io.tcpsight.internal.diagnose.connection;

import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.model.ClientLibrary;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.PushedClientMetrics;
import io.tcpsight.internal.model.PushedClientMetrics.Figure;
import java.util.List;
import java.util.OptionalDouble;

/**
 * What a client said of itself in its telemetry push (KIP-714), as evidence beside the kernel's:
 * each figure under its own name, only where the client pushed it on this connection lately.
 */
final class ClientWords {
    private ClientWords() {}

    /** Adds the figures the client pushed, of those named, to the evidence. */
    static void add(ConnectionFacts facts, List<Evidence> evidence, Figure... figures) {
        facts.pushed().ifPresent(pushed -> {
            for (Figure figure : figures) {
                if (figure == Figure.RECORD_QUEUE_TIME_AVG_MS && !recordQueueTimeIsARecords(facts)) {
                    continue;
                }
                pushed.figure(figure).ifPresent(value -> evidence.add(evidence(figure, value)));
            }
        });
    }

    /**
     * The time the producer's records waited in its queue, where what it pushed under that name is one.
     * librdkafka (2.16) pushes under {@code producer.record.queue.time.avg} the time its requests
     * waited in a broker's output buffer before being written to the socket (its {@code outbuf_latency},
     * rdkafka_telemetry_encode.c): it builds a request only when one may be sent, so a record held
     * behind its pipeline waits before that, and the figure stays near zero (0.09 ms measured with
     * 100,000 records queued behind it). It is not read as a record's wait.
     */
    static OptionalDouble recordQueueTimeMs(ConnectionFacts facts) {
        if (facts.pushed().isEmpty() || !recordQueueTimeIsARecords(facts)) {
            return OptionalDouble.empty();
        }
        return facts.pushed().get().figure(Figure.RECORD_QUEUE_TIME_AVG_MS);
    }

    private static boolean recordQueueTimeIsARecords(ConnectionFacts facts) {
        return facts.identity().clientLibrary() != ClientLibrary.LIBRDKAFKA;
    }

    /** The consumer's lag growth between its last two pushes, as evidence; nothing where unknown. */
    static void addLagGrowth(ConnectionFacts facts, List<Evidence> evidence) {
        lagGrowth(facts)
                .ifPresent(growth -> evidence.add(new Evidence(
                        "clientRecordsLagGrowth",
                        Math.round(growth * 10) / 10.0,
                        "records/s (the client's own, pushed)")));
    }

    /**
     * At most this share of what a consumer reads may come from other brokers for its lag to be
     * taken as this connection's: an idle partition's empty fetches elsewhere come to hundreds of
     * bytes a second, a partition that moves data to far more.
     */
    static final double OTHER_BROKERS_AT_MOST = 0.01;

    /**
     * What the consumer's own figures say of its lag on a connection whose receive buffer is the
     * limit, where they agree that the lag grows behind that window: its largest lag grew between two
     * pushes on this connection, and 99 % or more of what it read came from this broker, over its one
     * node connection to it (a Java client's), the one whose window is full. Java clients only: their
     * per-node counts are known to be per connection. Empty otherwise: records-lag-max is its largest
     * over every broker. Its poll()'s idle share is evidence, not a condition: a consumer that did
     * nothing between polls read 0.47 to 0.50 behind a 64 KiB window and autotuned alike (the lab,
     * 2026-12-02), so it does not tell a slow application from a held window. What is left unseen: a
     * partition elsewhere whose fetches carry under 1 % of these bytes while it holds the largest lag.
     */
    static String lagBehindThisWindow(ConnectionFacts facts) {
        if (facts.pushed().isEmpty() || facts.identity().clientLibrary() != ClientLibrary.JAVA) {
            return "";
        }
        PushedClientMetrics pushed = facts.pushed().get();
        OptionalDouble growth = pushed.lagGrowthPerSecond();
        OptionalDouble here = pushed.figure(Figure.CONSUMER_INCOMING_BYTE_RATE);
        if (growth.isEmpty() || growth.getAsDouble() <= 0 || here.isEmpty() || here.getAsDouble() <= 0) {
            return "";
        }
        // a Java client pushes a point for each node connection it has: none for another broker, none to count
        double otherBrokers =
                pushed.figure(Figure.CONSUMER_INCOMING_BYTE_RATE_OTHER_BROKERS).orElse(0);
        if (otherBrokers > OTHER_BROKERS_AT_MOST * here.getAsDouble()) {
            return "";
        }
        return String.format(
                "; by its own figures (pushed) the consumer's lag grew %.0f records a second to %.0f, and it read"
                        + " %.2f Mbit/s from this broker and %.4f from others: its lag grows behind this window (its"
                        + " receive buffer)",
                growth.getAsDouble(),
                pushed.figure(Figure.RECORDS_LAG_MAX).getAsDouble(),
                here.getAsDouble() * 8 / 1e6,
                otherBrokers * 8 / 1e6);
    }

    /** How fast the consumer's own largest lag grew between its last two pushes, where it pushed both. */
    private static OptionalDouble lagGrowth(ConnectionFacts facts) {
        return facts.pushed().map(PushedClientMetrics::lagGrowthPerSecond).orElse(OptionalDouble.empty());
    }

    private static Evidence evidence(Figure figure, double value) {
        String name = "client" + Character.toUpperCase(figure.field().charAt(0))
                + figure.field().substring(1);
        return new Evidence(name, Math.round(value * 1000) / 1000.0, unit(figure) + " (the client's own, pushed)");
    }

    private static String unit(Figure figure) {
        switch (figure) {
            case RECORD_QUEUE_TIME_AVG_MS:
            case PRODUCER_REQUEST_LATENCY_AVG_MS:
            case FETCH_LATENCY_AVG_MS:
                return "ms";
            case BATCH_SIZE_AVG_BYTES:
            case BUFFER_TOTAL_BYTES:
            case BUFFER_AVAILABLE_BYTES:
                return "bytes";
            case BUFFERPOOL_WAIT_RATIO:
                return "ratio of time";
            case RECORDS_LAG_MAX:
                return "records";
            case PRODUCER_OUTGOING_BYTE_RATE:
            case CONSUMER_INCOMING_BYTE_RATE:
            case CONSUMER_INCOMING_BYTE_RATE_OTHER_BROKERS:
                return "bytes/s";
            case POLL_IDLE_RATIO_AVG:
                return "ratio of time";
            default:
                throw new IllegalStateException("no unit for " + figure);
        }
    }
}
