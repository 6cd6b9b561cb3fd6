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
     * At most this share of what a consumer reads may come from its other connections for its lag to
     * be this connection's: its group coordinator's heartbeats and a bootstrap connection's metadata
     * come to bytes a second, a fetch from another broker to far more.
     */
    static final double ELSEWHERE_AT_MOST = 0.01;

    /**
     * What the consumer's own figures say of its lag on a connection whose receive window is the
     * limit, where they make it certain the window holds the lag: its largest lag grew between two
     * pushes on this connection, and it read at least 99 % of its bytes from this broker's node
     * connection, the one whose window is full (a Java client has one a broker), so every partition
     * it fetches with data comes over this socket. Empty otherwise: records-lag-max is its largest
     * over every broker, and a consumer that also reads elsewhere may lag there.
     */
    static String lagBehindThisWindow(ConnectionFacts facts) {
        if (facts.pushed().isEmpty()) {
            return "";
        }
        PushedClientMetrics pushed = facts.pushed().get();
        OptionalDouble growth = pushed.lagGrowthPerSecond();
        OptionalDouble lag = pushed.figure(Figure.RECORDS_LAG_MAX);
        OptionalDouble here = pushed.figure(Figure.CONSUMER_INCOMING_BYTE_RATE);
        if (growth.isEmpty()
                || growth.getAsDouble() <= 0
                || lag.isEmpty()
                || here.isEmpty()
                || here.getAsDouble() <= 0) {
            return "";
        }
        double elsewhere =
                pushed.figure(Figure.CONSUMER_INCOMING_BYTE_RATE_ELSEWHERE).orElse(0);
        if (elsewhere > ELSEWHERE_AT_MOST * here.getAsDouble()) {
            return "";
        }
        return String.format(
                "; by its own figures (pushed) the consumer's lag grew %.0f records a second to %.0f, and it read"
                        + " %.2f Mbit/s over this connection and %.4f elsewhere: what it lags on comes through this"
                        + " window, so the lag is the network's, not its processing's",
                growth.getAsDouble(), lag.getAsDouble(), here.getAsDouble() * 8 / 1e6, elsewhere * 8 / 1e6);
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
            case CONSUMER_INCOMING_BYTE_RATE_ELSEWHERE:
                return "bytes/s";
            default:
                throw new IllegalStateException("no unit for " + figure);
        }
    }
}
