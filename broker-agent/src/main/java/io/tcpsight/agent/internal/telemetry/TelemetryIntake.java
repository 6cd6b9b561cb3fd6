package io.tcpsight.agent.internal.telemetry;

import com.google.protobuf.InvalidProtocolBufferException;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Where each client telemetry push (KIP-714) the broker receives goes: onto the connection it came
 * on, which Kafka's request context names by its connection id, so the client's own figures sit
 * beside the kernel's for the same socket. A connection keeps only its latest push, so memory is
 * bounded by the connections the agent tracks, whatever clients push. A push that is too large,
 * not OTLP, or on a connection the agent does not track is counted and dropped; each kind is
 * logged once. Nothing here throws into Kafka.
 */
public final class TelemetryIntake {
    /** Kafka's own default for telemetry.max.bytes: a larger push is dropped unread. */
    public static final int MAX_PUSH_BYTES = 1024 * 1024;

    /** What Kafka's broker names the payload's format (its DefaultClientTelemetryPayload, 4.3.1). */
    static final String OTLP = "OTLP";
    /** OTLP's own media type, which a receiver may be handed instead. */
    static final String PROTOBUF = "application/x-protobuf";

    /** How each push ended. */
    public enum Outcome {
        /** decoded and kept on the connection it came on */
        JOINED,
        /** on a connection the agent does not track (TCP_INFO unavailable, or the table full): not decoded */
        UNJOINED,
        /** not an OTLP MetricsData, or of another content type */
        MALFORMED,
        /** above {@link #MAX_PUSH_BYTES} */
        OVERSIZED;

        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Function<Object, Optional<TrackedConnection>> connectionOf;
    private final BiConsumer<String, Throwable> failedOnce;
    private final AtomicLong[] counts = new AtomicLong[Outcome.values().length];
    private volatile OtlpPushDecoder decoder = new OtlpPushDecoder(-1);

    /** Whether Kafka created a receiver in this JVM (a broker that lists it in metric.reporters). */
    private boolean receiverConfigured;

    private final List<Runnable> whenReceiving = new ArrayList<>();

    /**
     * @param connectionOf the tracked connection a request's context names (its connection id)
     * @param failedOnce where a failure goes (logged once per kind)
     */
    public TelemetryIntake(
            Function<Object, Optional<TrackedConnection>> connectionOf, BiConsumer<String, Throwable> failedOnce) {
        this.connectionOf = connectionOf;
        this.failedOnce = failedOnce;
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new AtomicLong();
        }
    }

    /**
     * Kafka created a receiver in this JVM: from now on pushes may come, and what waits for that
     * (the endpoint's counts) runs, once. A Connect worker or a client JVM with the agent never gets
     * here, so its endpoint shows nothing of client telemetry.
     */
    public void receiverConfigured() {
        List<Runnable> waiting;
        synchronized (whenReceiving) {
            if (receiverConfigured) {
                return;
            }
            receiverConfigured = true;
            waiting = new ArrayList<>(whenReceiving);
            whenReceiving.clear();
        }
        waiting.forEach(Runnable::run);
    }

    /** Runs {@code action} once a receiver is configured: now, if one already is. */
    public void whenReceiving(Runnable action) {
        synchronized (whenReceiving) {
            if (!receiverConfigured) {
                whenReceiving.add(action);
                return;
            }
        }
        action.run();
    }

    /**
     * One push, as Kafka hands it to a receiver.
     *
     * @param requestContext Kafka's context of the PushTelemetry request (its connection id is read)
     * @param brokerNodeId this broker's node.id, from the receiver's configuration (below 0 when unknown):
     *     a client's per-broker figures are read for it
     * @return how it ended
     */
    public Outcome receive(
            Object requestContext, int brokerNodeId, String clientInstanceId, String contentType, ByteBuffer data) {
        Outcome outcome = intake(requestContext, brokerNodeId, clientInstanceId, contentType, data);
        counts[outcome.ordinal()].incrementAndGet();
        return outcome;
    }

    private Outcome intake(
            Object requestContext, int brokerNodeId, String clientInstanceId, String contentType, ByteBuffer data) {
        if (data == null || clientInstanceId == null) {
            failedOnce.accept("a client telemetry push without data or id", new IllegalArgumentException("dropped"));
            return Outcome.MALFORMED;
        }
        if (data.remaining() > MAX_PUSH_BYTES) {
            failedOnce.accept(
                    "an oversized client telemetry push",
                    new IllegalArgumentException(data.remaining() + " bytes, above the " + MAX_PUSH_BYTES
                            + " the agent reads (Kafka's default telemetry.max.bytes); dropped"));
            return Outcome.OVERSIZED;
        }
        if (contentType != null && !contentType.equalsIgnoreCase(OTLP) && !contentType.startsWith(PROTOBUF)) {
            failedOnce.accept(
                    "a client telemetry push of another content type",
                    new IllegalArgumentException(
                            "content type " + contentType + ", not " + OTLP + " or " + PROTOBUF + "; dropped"));
            return Outcome.MALFORMED;
        }
        // joined first: a push on a connection the agent does not track is not worth decoding
        Optional<TrackedConnection> connection;
        try {
            connection = connectionOf.apply(requestContext);
        } catch (RuntimeException unreadable) {
            failedOnce.accept("reading a push's connection id", unreadable);
            return Outcome.UNJOINED;
        }
        if (connection.isEmpty()) {
            return Outcome.UNJOINED;
        }
        try {
            connection.get().pushed(decoder(brokerNodeId).decode(clientInstanceId, System.nanoTime(), data));
        } catch (InvalidProtocolBufferException malformed) {
            failedOnce.accept("decoding a client telemetry push", malformed);
            return Outcome.MALFORMED;
        }
        return Outcome.JOINED;
    }

    /** The decoder for this broker's node.id: one, made again only if the id changes. */
    private OtlpPushDecoder decoder(int brokerNodeId) {
        OtlpPushDecoder known = decoder;
        if (known.brokerNodeId() != brokerNodeId) {
            known = new OtlpPushDecoder(brokerNodeId);
            decoder = known;
        }
        return known;
    }

    /** How many pushes ended so. */
    public long count(Outcome outcome) {
        return counts[outcome.ordinal()].get();
    }
}
