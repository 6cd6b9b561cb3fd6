package io.tcpsight.internal.tuning;

import io.tcpsight.internal.model.ProducerPipeline;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Producer settings from the bandwidth-delay product. A producer's connection to one broker
 * carries at most its requests in flight times what each request holds (a batch per partition,
 * up to max.request.size) per round trip, and its send buffer must hold every unacknowledged
 * byte. Sized for twice the BDP in flight: the broker answers a request only once it has written
 * (acks=1) or replicated (acks=all) it. A plain function: RTT, target rate and partitions per
 * request in; values that are never below Kafka's defaults out.
 */
public final class ProducerSizing {
    /** max.in.flight.requests.per.connection at most while idempotence holds (Java, kafka-python, librdkafka). */
    public static final int IN_FLIGHT_WITH_IDEMPOTENCE = 5;
    /** The Java client's (and kafka-python's) batch.size default. */
    public static final long DEFAULT_BATCH_BYTES = ProducerPipeline.DEFAULT_BATCH_BYTES;
    /** The largest batch.size given: one batch must stay within the broker's message.max.bytes (1048588). */
    public static final long MAX_BATCH_BYTES = 1_048_576;

    public static final long DEFAULT_MAX_REQUEST_BYTES = ProducerPipeline.DEFAULT_MAX_REQUEST_BYTES;
    public static final long DEFAULT_BUFFER_MEMORY = ProducerPipeline.DEFAULT_BUFFER_MEMORY;
    /** Twice the BDP in flight. */
    static final int IN_FLIGHT_HEADROOM = 2;
    /** A batch waits this long for more records while the pipeline has room (20-50 ms for long paths). */
    public static final int LINGER_MS = 20;

    private final long inFlightBytes;
    private final long batchBytes;
    private final long maxRequestBytes;
    private final long bufferMemoryBytes;

    private ProducerSizing(long inFlightBytes, long batchBytes, long maxRequestBytes, long bufferMemoryBytes) {
        this.inFlightBytes = inFlightBytes;
        this.batchBytes = batchBytes;
        this.maxRequestBytes = maxRequestBytes;
        this.bufferMemoryBytes = bufferMemoryBytes;
    }

    /**
     * @param partitionsPerRequest the partitions one request to a broker carries batches of; with
     *     one, a single partition fills the pipeline, and more partitions only fill it sooner
     */
    public static ProducerSizing forPath(long rttMicros, double targetBytesPerSecond, int partitionsPerRequest) {
        if (rttMicros < 0 || !(targetBytesPerSecond > 0) || partitionsPerRequest < 1) {
            throw new IllegalArgumentException("producer sizing needs rtt >= 0 µs, a target rate > 0 and at least one"
                    + " partition per request, got rtt " + rttMicros + " µs, rate " + targetBytesPerSecond
                    + " B/s, partitions " + partitionsPerRequest);
        }
        long inFlight = IN_FLIGHT_HEADROOM * Bdp.bytes(rttMicros, targetBytesPerSecond);
        long batch = Math.min(
                MAX_BATCH_BYTES,
                Math.max(
                        DEFAULT_BATCH_BYTES,
                        powerOfTwoAtLeast(inFlight / ((long) IN_FLIGHT_WITH_IDEMPOTENCE * partitionsPerRequest))));
        long maxRequest = Math.max(DEFAULT_MAX_REQUEST_BYTES, powerOfTwoAtLeast(batch * partitionsPerRequest));
        long bufferMemory = Math.max(DEFAULT_BUFFER_MEMORY, powerOfTwoAtLeast(2 * inFlight));
        return new ProducerSizing(inFlight, batch, maxRequest, bufferMemory);
    }

    /** The bytes the pipeline is sized to keep in flight: twice the BDP. */
    public long inFlightBytes() {
        return inFlightBytes;
    }

    /** batch.size: a power of two, from the default 16384 up to 1 MiB. */
    public long batchBytes() {
        return batchBytes;
    }

    /** max.request.size: one request holds a batch of every partition it carries. */
    public long maxRequestBytes() {
        return maxRequestBytes;
    }

    /** Whether max.request.size must rise above Kafka's default. */
    public boolean raisesMaxRequest() {
        return maxRequestBytes > DEFAULT_MAX_REQUEST_BYTES;
    }

    /** buffer.memory: in-flight batches keep their memory until acknowledged, and the next ones accumulate. */
    public long bufferMemoryBytes() {
        return bufferMemoryBytes;
    }

    /** Whether buffer.memory must rise above Kafka's default. */
    public boolean raisesBufferMemory() {
        return bufferMemoryBytes > DEFAULT_BUFFER_MEMORY;
    }

    /** What a round trip carries with these settings on one connection: requests in flight times their size. */
    public long bytesPerRoundTrip(int partitionsPerRequest) {
        return IN_FLIGHT_WITH_IDEMPOTENCE * batchBytes * partitionsPerRequest;
    }

    /** The producer keys the sizing gives, in the order a report shows them. */
    public static final List<String> KEYS =
            List.of("batch.size", "linger.ms", "max.request.size", "buffer.memory", "send.buffer.bytes");

    /**
     * The sizing as client settings in the Java client's keys ({@link #KEYS}), whether or not they
     * rise above Kafka's defaults: what a config provider hands out and a probe runs with.
     */
    public Map<String, String> clientSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("batch.size", Long.toString(batchBytes));
        settings.put("linger.ms", Integer.toString(LINGER_MS));
        settings.put("max.request.size", Long.toString(maxRequestBytes));
        settings.put("buffer.memory", Long.toString(bufferMemoryBytes));
        settings.put("send.buffer.bytes", "-1"); // autotuned: the window of unacknowledged bytes grows to the path
        return settings;
    }

    /** The least power of two at or above the value (at least 1). */
    static long powerOfTwoAtLeast(long value) {
        return value <= 1 ? 1 : Long.highestOneBit(value - 1) << 1;
    }
}
