package io.tcpsight.internal.model;

import java.util.Locale;

/**
 * The client library at a connection's client end, which decides how a remedy spells a client
 * setting. Known from the software name the client announced (KIP-511), else from the client.id
 * conventions of the Java client and of librdkafka.
 */
public enum ClientLibrary {
    /** Apache Kafka's Java client, and everything built on it (Connect, Streams, MirrorMaker 2). */
    JAVA("java"),
    /** librdkafka and its wrappers: confluent-kafka-python, -go, -dotnet, node-rdkafka, kcat. */
    LIBRDKAFKA("librdkafka"),
    /** kafka-python (PyPI): announces "kafka-python"; client_id defaults to "kafka-python-VERSION". */
    KAFKA_PYTHON("kafka-python"),
    /** franz-go (github.com/twmb/franz-go/pkg/kgo): announces "kgo"; client id defaults to "kgo". */
    FRANZ_GO("franz-go"),
    /** IBM/sarama (Go): announces "sarama" (api_versions_request.go); ClientID defaults to "sarama". */
    SARAMA("sarama"),
    /** KafkaJS (npm): announces nothing; its clientId defaults to "kafkajs". */
    KAFKAJS("kafkajs"),
    /**
     * segmentio/kafka-go: announces no name (measured with v0.4.51); its default client id is
     * "PROGRAM@HOST (github.com/segmentio/kafka-go)" (conn.go DefaultClientID).
     */
    KAFKA_GO("kafka-go"),
    UNKNOWN("unknown");

    private final String label;

    ClientLibrary(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** From KIP-511's "name/version" (or a bare name); UNKNOWN for null and for every other library. */
    public static ClientLibrary fromSoftware(String software) {
        if (software == null) {
            return UNKNOWN;
        }
        int slash = software.indexOf('/');
        String name = (slash < 0 ? software : software.substring(0, slash)).toLowerCase(Locale.ROOT);
        if (name.equals("apache-kafka-java")) {
            return JAVA;
        }
        if (name.contains("rdkafka") || name.startsWith("confluent-kafka-") || name.equals("kcat")) {
            return LIBRDKAFKA;
        }
        switch (name) {
            case "kafka-python":
                return KAFKA_PYTHON;
            case "kgo":
            case "franz-go":
                return FRANZ_GO;
            case "sarama":
                return SARAMA;
            case "kafkajs":
                return KAFKAJS;
            case "kafka-go":
            case "segmentio-kafka-go":
                return KAFKA_GO;
            default:
                return UNKNOWN;
        }
    }

    /**
     * A guess from the client.id when the client announced nothing: the Java client's generated
     * ids ("consumer-GROUP-N", "producer-N", "adminclient-N", Connect's) and the defaults of the
     * other libraries ("rdkafka", "kafka-python-VERSION", "kgo", "sarama", "kafkajs", and kafka-go's
     * "PROGRAM@HOST (github.com/segmentio/kafka-go)").
     */
    public static ClientLibrary fromClientId(String clientId) {
        if (ClientKind.fromClientId(clientId) != ClientKind.UNKNOWN) {
            return JAVA;
        }
        if (clientId == null) {
            return UNKNOWN;
        }
        if (clientId.startsWith("kafka-python-")) {
            return KAFKA_PYTHON;
        }
        if (clientId.endsWith("(github.com/segmentio/kafka-go)")) {
            return KAFKA_GO;
        }
        switch (clientId) {
            case "rdkafka":
                return LIBRDKAFKA;
            case "kgo":
                return FRANZ_GO;
            case "sarama":
                return SARAMA;
            case "kafkajs":
                return KAFKAJS;
            default:
                return UNKNOWN;
        }
    }

    /** The major version of "name/MAJOR.minor..." (a leading v allowed), or -1 when none is readable. */
    public static int majorVersion(String software) {
        if (software == null || software.indexOf('/') < 0) {
            return -1;
        }
        String version = software.substring(software.indexOf('/') + 1).replaceFirst("^v", "");
        int end = 0;
        while (end < version.length() && Character.isDigit(version.charAt(end))) {
            end++;
        }
        return end == 0 ? -1 : Integer.parseInt(version.substring(0, Math.min(end, 6)));
    }
}
