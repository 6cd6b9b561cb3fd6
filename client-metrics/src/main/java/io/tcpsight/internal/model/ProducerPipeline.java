package io.tcpsight.internal.model;

import java.util.Map;

/**
 * What a producer's config lets one connection carry a round trip: its requests in flight
 * ({@code max.in.flight.requests.per.connection}) times what each holds, a batch
 * ({@code batch.size}) per partition up to {@code max.request.size}; and {@code linger.ms} and
 * {@code buffer.memory} beside them. Read from a Java client's config, each key absent at Kafka's
 * default (4.x: linger.ms 5).
 */
public final class ProducerPipeline {
    public static final long DEFAULT_BATCH_BYTES = 16_384;
    public static final int DEFAULT_MAX_IN_FLIGHT = 5;
    public static final long DEFAULT_MAX_REQUEST_BYTES = 1_048_576;
    public static final long DEFAULT_LINGER_MS = 5;
    public static final long DEFAULT_BUFFER_MEMORY = 33_554_432;

    private final long batchBytes;
    private final int maxInFlight;
    private final long maxRequestBytes;
    private final long lingerMs;
    private final long bufferMemoryBytes;

    public ProducerPipeline(
            long batchBytes, int maxInFlight, long maxRequestBytes, long lingerMs, long bufferMemoryBytes) {
        this.batchBytes = batchBytes;
        this.maxInFlight = maxInFlight;
        this.maxRequestBytes = maxRequestBytes;
        this.lingerMs = lingerMs;
        this.bufferMemoryBytes = bufferMemoryBytes;
    }

    /** Kafka's defaults, the pipeline of a producer that sets none of the keys. */
    public static ProducerPipeline defaults() {
        return new ProducerPipeline(
                DEFAULT_BATCH_BYTES,
                DEFAULT_MAX_IN_FLIGHT,
                DEFAULT_MAX_REQUEST_BYTES,
                DEFAULT_LINGER_MS,
                DEFAULT_BUFFER_MEMORY);
    }

    /**
     * The pipeline a Java client's config gives; a key that is no whole number of at least its
     * least value is refused with its name, its value and what is allowed.
     */
    public static ProducerPipeline fromClientConfig(Map<String, ?> config) {
        // Kafka's types: int for batch.size, max.in.flight and max.request.size, long for linger.ms and buffer.memory
        return new ProducerPipeline(
                number(config, "batch.size", DEFAULT_BATCH_BYTES, 0, Integer.MAX_VALUE),
                Math.toIntExact(number(
                        config, "max.in.flight.requests.per.connection", DEFAULT_MAX_IN_FLIGHT, 1, Integer.MAX_VALUE)),
                number(config, "max.request.size", DEFAULT_MAX_REQUEST_BYTES, 1, Integer.MAX_VALUE),
                number(config, "linger.ms", DEFAULT_LINGER_MS, 0, Long.MAX_VALUE),
                number(config, "buffer.memory", DEFAULT_BUFFER_MEMORY, 0, Long.MAX_VALUE));
    }

    private static long number(Map<String, ?> config, String key, long absent, long least, long most) {
        Object value = config.get(key);
        if (value == null) {
            return absent;
        }
        try {
            long parsed = Long.parseLong(String.valueOf(value).trim());
            if (parsed >= least && parsed <= most) {
                return parsed;
            }
        } catch (NumberFormatException notANumber) {
            // said below, with what is allowed
        }
        throw new IllegalArgumentException(
                key + "=" + value + " is not valid: a whole number from " + least + " to " + Integer.MAX_VALUE);
    }

    /** The same pipeline with each of these at least as large as it is: what raising them gives. */
    public ProducerPipeline atLeast(long batch, int inFlight, long maxRequest) {
        return new ProducerPipeline(
                Math.max(batchBytes, batch),
                Math.max(maxInFlight, inFlight),
                Math.max(maxRequestBytes, maxRequest),
                lingerMs,
                bufferMemoryBytes);
    }

    /**
     * The bytes one connection carries a round trip with every request in flight full: a batch for
     * each of the partitions a request names, up to max.request.size, times the requests in flight.
     */
    public long bytesPerRoundTrip(int partitionsPerRequest) {
        long perRequest = Math.min(Math.max(1, batchBytes) * Math.max(1, partitionsPerRequest), maxRequestBytes);
        return perRequest * maxInFlight;
    }

    public long batchBytes() {
        return batchBytes;
    }

    public int maxInFlight() {
        return maxInFlight;
    }

    public long maxRequestBytes() {
        return maxRequestBytes;
    }

    public long lingerMs() {
        return lingerMs;
    }

    public long bufferMemoryBytes() {
        return bufferMemoryBytes;
    }
}
