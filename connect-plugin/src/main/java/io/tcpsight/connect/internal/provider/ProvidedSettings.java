package io.tcpsight.connect.internal.provider;

import io.tcpsight.internal.tuning.BdpSettings;
import io.tcpsight.internal.tuning.ProducerSizing;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/** The client values the config provider hands out, with where they came from. */
public final class ProvidedSettings {
    /**
     * Kafka's own defaults for the fetch and batch sizes (linger.ms as Kafka 4.0 and later have
     * it) and kernel autotuning for the buffers: safe on any path.
     */
    public static final Map<String, String> FALLBACK;

    static {
        Map<String, String> fallback = new LinkedHashMap<>();
        fallback.put("fetch.max.bytes", Long.toString(BdpSettings.FETCH_MAX_BYTES_DEFAULT));
        fallback.put("max.partition.fetch.bytes", Long.toString(BdpSettings.MAX_PARTITION_FETCH_BYTES_DEFAULT));
        fallback.put("max.poll.records", Integer.toString(BdpSettings.MAX_POLL_RECORDS_DEFAULT));
        fallback.put("receive.buffer.bytes", "-1");
        fallback.put("send.buffer.bytes", "-1");
        fallback.put("batch.size", Long.toString(ProducerSizing.DEFAULT_BATCH_BYTES));
        fallback.put("linger.ms", "5");
        fallback.put("max.request.size", Long.toString(ProducerSizing.DEFAULT_MAX_REQUEST_BYTES));
        fallback.put("buffer.memory", Long.toString(ProducerSizing.DEFAULT_BUFFER_MEMORY));
        FALLBACK = Collections.unmodifiableMap(fallback);
    }

    private final Map<String, String> values;
    private final OptionalLong rttMicros;
    private final Instant measuredAt;
    private final String reason;

    private ProvidedSettings(Map<String, String> values, OptionalLong rttMicros, Instant measuredAt, String reason) {
        this.values = Collections.unmodifiableMap(values);
        this.rttMicros = rttMicros;
        this.measuredAt = measuredAt;
        this.reason = reason;
    }

    public static ProvidedSettings measured(BdpSettings.Recommendation recommendation, long rttMicros, Instant at) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("fetch.max.bytes", Long.toString(recommendation.fetchMaxBytes()));
        values.put("max.partition.fetch.bytes", Long.toString(recommendation.maxPartitionFetchBytes()));
        values.put("max.poll.records", Integer.toString(recommendation.maxPollRecords()));
        values.put("receive.buffer.bytes", Integer.toString(recommendation.receiveBufferBytes()));
        values.put("send.buffer.bytes", Integer.toString(recommendation.producerSendBufferBytes()));
        values.putAll(recommendation.producer().clientSettings());
        return new ProvidedSettings(
                values, OptionalLong.of(rttMicros), at, String.join("; ", recommendation.reasoning()));
    }

    static ProvidedSettings fallback(String why, Instant at) {
        return new ProvidedSettings(FALLBACK, OptionalLong.empty(), at, why);
    }

    /** Every value, of both uses. */
    public Map<String, String> values() {
        return values;
    }

    /** The values one use hands out, in its order. */
    public Map<String, String> valuesFor(SettingsUse use) {
        Map<String, String> wanted = new LinkedHashMap<>();
        for (String key : use.keys()) {
            wanted.put(key, values.get(key));
        }
        return Collections.unmodifiableMap(wanted);
    }

    /** Empty for fallback advice. */
    OptionalLong rttMicros() {
        return rttMicros;
    }

    public boolean isFallback() {
        return rttMicros.isEmpty();
    }

    Instant measuredAt() {
        return measuredAt;
    }

    String reason() {
        return reason;
    }

    /** The largest up-or-down ratio between the numeric values of two pieces of advice (1 when equal). */
    public double driftFrom(ProvidedSettings other) {
        double worst = 1;
        for (Map.Entry<String, String> entry : values.entrySet()) {
            long mine = Long.parseLong(entry.getValue());
            long theirs = Long.parseLong(other.values.getOrDefault(entry.getKey(), entry.getValue()));
            if (mine > 0 && theirs > 0) {
                worst = Math.max(worst, Math.max((double) mine / theirs, (double) theirs / mine));
            } else if ((mine > 0) != (theirs > 0)) {
                worst = Double.POSITIVE_INFINITY;
            }
        }
        return worst;
    }
}
