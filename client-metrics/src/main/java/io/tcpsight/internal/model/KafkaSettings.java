package io.tcpsight.internal.model;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The Kafka settings of one client that the rules judge, with Kafka's defaults applied for
 * its kind (3.9 and 4.x agree). A setting not known (e.g. a consumer's settings seen from the
 * broker) is empty from its getter: start from {@link #unknown()} and add what is known.
 */
public final class KafkaSettings {
    public static final int DEFAULT_FETCH_MAX_BYTES = 52_428_800;
    public static final int DEFAULT_MAX_PARTITION_FETCH_BYTES = 1_048_576;

    private final Integer receiveBufferBytes;
    private final Integer sendBufferBytes;
    private final Long fetchMaxBytes;
    private final Long maxPartitionFetchBytes;
    private final Integer partitionsPerBroker;
    /**
     * A replica fetcher's follower runs at least this many fetcher threads: the highest fetcher
     * number this broker saw from it, plus one (the broker's side); null when not seen.
     */
    private final Integer followerFetchersAtLeast;

    private final String securityProtocol;
    /** What its Produce requests carried in the latest interval (the broker's side); null when not seen. */
    private final ProduceTraffic produceTraffic;

    private KafkaSettings(Parts parts) {
        this.securityProtocol = parts.securityProtocol;
        this.produceTraffic = parts.produceTraffic;
        this.receiveBufferBytes = parts.receiveBufferBytes;
        this.sendBufferBytes = parts.sendBufferBytes;
        this.fetchMaxBytes = parts.fetchMaxBytes;
        this.maxPartitionFetchBytes = parts.maxPartitionFetchBytes;
        this.partitionsPerBroker = parts.partitionsPerBroker;
        this.followerFetchersAtLeast = parts.followerFetchersAtLeast;
    }

    /** What a wither copies and changes one of; null is "not known". */
    private static final class Parts {
        Integer receiveBufferBytes;
        Integer sendBufferBytes;
        Long fetchMaxBytes;
        Long maxPartitionFetchBytes;
        Integer partitionsPerBroker;
        Integer followerFetchersAtLeast;
        String securityProtocol;
        ProduceTraffic produceTraffic;
    }

    private Parts parts() {
        Parts parts = new Parts();
        parts.receiveBufferBytes = receiveBufferBytes;
        parts.sendBufferBytes = sendBufferBytes;
        parts.fetchMaxBytes = fetchMaxBytes;
        parts.maxPartitionFetchBytes = maxPartitionFetchBytes;
        parts.partitionsPerBroker = partitionsPerBroker;
        parts.followerFetchersAtLeast = followerFetchersAtLeast;
        parts.securityProtocol = securityProtocol;
        parts.produceTraffic = produceTraffic;
        return parts;
    }

    private static final KafkaSettings UNKNOWN = new KafkaSettings(new Parts());

    /** Nothing known; add what is with the withers. */
    public static KafkaSettings unknown() {
        return UNKNOWN;
    }

    /** Reads a client config (values as Kafka accepts them: strings or numbers), defaults by kind. */
    public static KafkaSettings fromClientConfig(Map<String, ?> config, ClientKind kind) {
        boolean consumer = kind.isConsumer();
        boolean producer = kind.isProducer();
        int receiveDefault = producer ? 32_768 : 65_536;
        int sendDefault = 131_072;
        Parts parts = new Parts();
        parts.receiveBufferBytes = intValue(config, "receive.buffer.bytes", receiveDefault);
        parts.sendBufferBytes = intValue(config, "send.buffer.bytes", sendDefault);
        if (consumer) {
            parts.fetchMaxBytes = (long) intValue(config, "fetch.max.bytes", DEFAULT_FETCH_MAX_BYTES);
            parts.maxPartitionFetchBytes =
                    (long) intValue(config, "max.partition.fetch.bytes", DEFAULT_MAX_PARTITION_FETCH_BYTES);
        }
        parts.securityProtocol = protocol(config.get("security.protocol"));
        return new KafkaSettings(parts);
    }

    private static String protocol(Object value) {
        return value == null ? "PLAINTEXT" : String.valueOf(value).trim().toUpperCase(Locale.ROOT);
    }

    private static int intValue(Map<String, ?> config, String key, int fallback) {
        Object value = config.get(key);
        if (value == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(String.valueOf(value).trim());
        } catch (NumberFormatException notANumber) {
            return fallback; // Kafka itself rejects such a config before any connection exists
        }
    }

    /** receive.buffer.bytes: -1 is kernel autotuning. */
    public KafkaSettings withReceiveBufferBytes(int value) {
        Parts parts = parts();
        parts.receiveBufferBytes = value;
        return new KafkaSettings(parts);
    }

    /** send.buffer.bytes: -1 is kernel autotuning. */
    public KafkaSettings withSendBufferBytes(int value) {
        Parts parts = parts();
        parts.sendBufferBytes = value;
        return new KafkaSettings(parts);
    }

    public KafkaSettings withFetchMaxBytes(long value) {
        Parts parts = parts();
        parts.fetchMaxBytes = value;
        return new KafkaSettings(parts);
    }

    public KafkaSettings withMaxPartitionFetchBytes(long value) {
        Parts parts = parts();
        parts.maxPartitionFetchBytes = value;
        return new KafkaSettings(parts);
    }

    public KafkaSettings withPartitionsPerBroker(int value) {
        Parts parts = parts();
        parts.partitionsPerBroker = value;
        return new KafkaSettings(parts);
    }

    /** A replica fetcher's follower runs at least this many fetcher threads (num.replica.fetchers). */
    public KafkaSettings withFollowerFetchersAtLeast(int value) {
        Parts parts = parts();
        parts.followerFetchersAtLeast = value;
        return new KafkaSettings(parts);
    }

    /** The same settings with what the client's Produce requests carried in the latest interval. */
    public KafkaSettings withProduceTraffic(ProduceTraffic value) {
        Parts parts = parts();
        parts.produceTraffic = value;
        return new KafkaSettings(parts);
    }

    /** What the client's Produce requests carried in the latest interval, as the broker read them. */
    public Optional<ProduceTraffic> produceTraffic() {
        return Optional.ofNullable(produceTraffic);
    }

    /** security.protocol as configured (PLAINTEXT when a known config leaves it out); empty when the config is unknown. */
    public Optional<String> securityProtocol() {
        return Optional.ofNullable(securityProtocol);
    }

    /**
     * Whether the client's byte totals can equal the kernel's: only in plaintext. TLS adds records and
     * handshakes the client never counts, and SASL's exchange may be counted on one side only.
     */
    public boolean countsBytesAsTheKernel() {
        return "PLAINTEXT".equals(securityProtocol);
    }

    /** receive.buffer.bytes as configured: -1 is kernel autotuning. */
    public OptionalInt receiveBufferBytes() {
        return OptionalValues.orEmpty(receiveBufferBytes);
    }

    public OptionalInt sendBufferBytes() {
        return OptionalValues.orEmpty(sendBufferBytes);
    }

    public OptionalLong fetchMaxBytes() {
        return OptionalValues.orEmpty(fetchMaxBytes);
    }

    public OptionalLong maxPartitionFetchBytes() {
        return OptionalValues.orEmpty(maxPartitionFetchBytes);
    }

    /** Partitions this client fetches from the broker of the connection. */
    public OptionalInt partitionsPerBroker() {
        return OptionalValues.orEmpty(partitionsPerBroker);
    }

    /**
     * The fetcher threads a replica fetcher's follower is known to run at least (its
     * num.replica.fetchers is this or more); empty when no other fetcher of it was seen.
     */
    public OptionalInt followerFetchersAtLeast() {
        return OptionalValues.orEmpty(followerFetchersAtLeast);
    }
}
