package io.tcpsight.model;

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
        return UNKNOWN;
    }

    /**
     * A guess from the client.id when the client announced nothing: the Java client's generated
     * ids ("consumer-GROUP-N", "producer-N", "adminclient-N", Connect's) and librdkafka's default
     * "rdkafka".
     */
    public static ClientLibrary fromClientId(String clientId) {
        if (ClientKind.fromClientId(clientId) != ClientKind.UNKNOWN) {
            return JAVA;
        }
        return "rdkafka".equals(clientId) ? LIBRDKAFKA : UNKNOWN;
    }
}
