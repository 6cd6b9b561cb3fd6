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
    private final String securityProtocol;
    /** What its Produce requests carried in the latest interval (the broker's side); null when not seen. */
    private final ProduceTraffic produceTraffic;

    private KafkaSettings(
            Integer receiveBufferBytes,
            Integer sendBufferBytes,
            Long fetchMaxBytes,
            Long maxPartitionFetchBytes,
            Integer partitionsPerBroker,
            String securityProtocol,
            ProduceTraffic produceTraffic) {
        this.securityProtocol = securityProtocol;
        this.produceTraffic = produceTraffic;
        this.receiveBufferBytes = receiveBufferBytes;
        this.sendBufferBytes = sendBufferBytes;
        this.fetchMaxBytes = fetchMaxBytes;
        this.maxPartitionFetchBytes = maxPartitionFetchBytes;
        this.partitionsPerBroker = partitionsPerBroker;
    }

    private static final KafkaSettings UNKNOWN = new KafkaSettings(null, null, null, null, null, null, null);

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
        return new KafkaSettings(
                intValue(config, "receive.buffer.bytes", receiveDefault),
                intValue(config, "send.buffer.bytes", sendDefault),
                consumer ? (long) intValue(config, "fetch.max.bytes", DEFAULT_FETCH_MAX_BYTES) : null,
                consumer
                        ? (long) intValue(config, "max.partition.fetch.bytes", DEFAULT_MAX_PARTITION_FETCH_BYTES)
                        : null,
                null,
                protocol(config.get("security.protocol")),
                null);
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
    public KafkaSettings withReceiveBufferBytes(int bytes) {
        return new KafkaSettings(
                bytes,
                sendBufferBytes,
                fetchMaxBytes,
                maxPartitionFetchBytes,
                partitionsPerBroker,
                securityProtocol,
                produceTraffic);
    }

    /** send.buffer.bytes: -1 is kernel autotuning. */
    public KafkaSettings withSendBufferBytes(int bytes) {
        return new KafkaSettings(
                receiveBufferBytes,
                bytes,
                fetchMaxBytes,
                maxPartitionFetchBytes,
                partitionsPerBroker,
                securityProtocol,
                produceTraffic);
    }

    public KafkaSettings withFetchMaxBytes(long bytes) {
        return new KafkaSettings(
                receiveBufferBytes,
                sendBufferBytes,
                bytes,
                maxPartitionFetchBytes,
                partitionsPerBroker,
                securityProtocol,
                produceTraffic);
    }

    public KafkaSettings withMaxPartitionFetchBytes(long bytes) {
        return new KafkaSettings(
                receiveBufferBytes,
                sendBufferBytes,
                fetchMaxBytes,
                bytes,
                partitionsPerBroker,
                securityProtocol,
                produceTraffic);
    }

    public KafkaSettings withPartitionsPerBroker(int partitions) {
        return new KafkaSettings(
                receiveBufferBytes,
                sendBufferBytes,
                fetchMaxBytes,
                maxPartitionFetchBytes,
                partitions,
                securityProtocol,
                produceTraffic);
    }

    /** The same settings with what the client's Produce requests carried in the latest interval. */
    public KafkaSettings withProduceTraffic(ProduceTraffic traffic) {
        return new KafkaSettings(
                receiveBufferBytes,
                sendBufferBytes,
                fetchMaxBytes,
                maxPartitionFetchBytes,
                partitionsPerBroker,
                securityProtocol,
                traffic);
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
}
