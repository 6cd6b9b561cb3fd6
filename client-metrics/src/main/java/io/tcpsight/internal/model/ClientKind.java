package io.tcpsight.internal.model;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What kind of Kafka client a connection belongs to, which decides the configuration key a
 * finding names. Derived from the client.id conventions of Kafka and Connect when nothing
 * better is known.
 */
public enum ClientKind {
    CONSUMER,
    PRODUCER,
    ADMIN,
    /** A Connect task's consumer: client.id connector-consumer-NAME-TASK (TASK "*" when only the connector is known). */
    CONNECT_CONSUMER,
    /** A Connect task's producer: client.id connector-producer-NAME-TASK. */
    CONNECT_PRODUCER,
    /** A consumer MirrorMaker 2 builds itself (see {@link MirrorClient}): the replication consumer, ... */
    MIRROR_CONSUMER,
    /** A producer MirrorMaker 2 builds itself: the offset-syncs producer. */
    MIRROR_PRODUCER,
    /** An admin client MirrorMaker 2 builds itself. */
    MIRROR_ADMIN,
    /** A broker's replica fetcher. */
    REPLICA_FETCHER,
    UNKNOWN;

    private static final Pattern CONNECT =
            Pattern.compile("^connector-(consumer|producer|dlq-producer)-(.+)-(\\d+|\\*)$");
    /** Kafka names a follower's fetcher "broker-<follower id>-fetcher-<fetcher id>". */
    private static final Pattern REPLICA_FETCHER_ID = Pattern.compile("^broker-(\\d+)-fetcher-(\\d+)$");

    /** Guesses the kind from a client.id; UNKNOWN when it follows no convention. */
    public static ClientKind fromClientId(String clientId) {
        if (clientId == null) {
            return UNKNOWN;
        }
        Optional<MirrorClient> mirror = MirrorClient.fromClientId(clientId);
        if (mirror.isPresent()) {
            String type = mirror.get().clientType();
            return type.equals("consumer") ? MIRROR_CONSUMER : type.equals("producer") ? MIRROR_PRODUCER : MIRROR_ADMIN;
        }
        Matcher connect = CONNECT.matcher(clientId);
        if (connect.matches()) {
            return connect.group(1).equals("consumer") ? CONNECT_CONSUMER : CONNECT_PRODUCER;
        }
        if (clientId.startsWith("consumer-")) {
            return CONSUMER;
        }
        if (clientId.startsWith("producer-")) {
            return PRODUCER;
        }
        if (clientId.startsWith("adminclient-")) {
            return ADMIN;
        }
        if (REPLICA_FETCHER_ID.matcher(clientId).matches()) {
            return REPLICA_FETCHER;
        }
        return UNKNOWN;
    }

    /** The connector a Connect task client works for, from its client.id. */
    public static Optional<String> connectorName(String clientId) {
        if (clientId == null) {
            return Optional.empty();
        }
        Matcher connect = CONNECT.matcher(clientId);
        return connect.matches() ? Optional.of(connect.group(2)) : Optional.empty();
    }

    /** The broker a replica fetcher works for (the follower), from its client.id "broker-2-fetcher-0". */
    public static OptionalInt followerBrokerId(String clientId) {
        return replicaFetcherNumber(clientId, 1);
    }

    /**
     * Which of its follower's fetcher threads a replica fetcher is, from its client.id
     * "broker-2-fetcher-1" (1); empty for any other client.
     */
    public static OptionalInt replicaFetcherIndex(String clientId) {
        return replicaFetcherNumber(clientId, 2);
    }

    /** One of the two numbers in a replica fetcher's client.id; empty for any other client or a number too long. */
    private static OptionalInt replicaFetcherNumber(String clientId, int group) {
        if (clientId == null) {
            return OptionalInt.empty();
        }
        Matcher fetcher = REPLICA_FETCHER_ID.matcher(clientId);
        if (!fetcher.matches()) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(fetcher.group(group)));
        } catch (NumberFormatException tooLong) {
            return OptionalInt.empty();
        }
    }

    /** The task a Connect task client works for, from its client.id; empty for "*" (only the connector known). */
    public static OptionalInt connectorTask(String clientId) {
        if (clientId == null) {
            return OptionalInt.empty();
        }
        Matcher connect = CONNECT.matcher(clientId);
        if (!connect.matches() || connect.group(3).equals("*")) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(connect.group(3)));
        } catch (NumberFormatException tooLong) {
            return OptionalInt.empty(); // a client.id is anything a client sends
        }
    }

    /** A consumer, whoever built it. */
    public boolean isConsumer() {
        return this == CONSUMER || this == CONNECT_CONSUMER || this == MIRROR_CONSUMER;
    }

    /** A producer, whoever built it. */
    public boolean isProducer() {
        return this == PRODUCER || this == CONNECT_PRODUCER || this == MIRROR_PRODUCER;
    }

    public boolean isMirror() {
        return this == MIRROR_CONSUMER || this == MIRROR_PRODUCER || this == MIRROR_ADMIN;
    }

    public boolean isConnect() {
        return this == CONNECT_CONSUMER || this == CONNECT_PRODUCER;
    }

    /** The client-config prefix Connect uses for this kind at worker level ("consumer."), or "". */
    public String connectWorkerPrefix() {
        return this == CONNECT_CONSUMER ? "consumer." : this == CONNECT_PRODUCER ? "producer." : "";
    }

    /** The prefix of the same settings in a connector's config ("consumer.override."), or "". */
    public String connectorOverridePrefix() {
        return connectWorkerPrefix().replace(".", ".override.");
    }
}
