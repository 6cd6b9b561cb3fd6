package io.tcpsight.doctor;

import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ClientKind;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * Whether the config the doctor judges is a producer's or a consumer's: given with {@code --client},
 * else read from the keys only one of them has, and the report says which and why. A producer is
 * judged by the rules of what it sends (its send buffer, its pipeline of batches, the broker's
 * receive buffer), a consumer by those of what it fetches (and, as before, the broker's receive
 * buffer, which says no rate for it); neither gets the other's client rules.
 */
enum ClientRole {
    CONSUMER("consumer", ClientKind.CONSUMER, BulkFlow.TO_CLIENT),
    PRODUCER("producer", ClientKind.PRODUCER, BulkFlow.TO_BROKER);

    /** Keys only a Java producer has. */
    static final List<String> PRODUCER_KEYS = List.of(
            "acks",
            "batch.size",
            "linger.ms",
            "buffer.memory",
            "max.in.flight.requests.per.connection",
            "max.request.size",
            "enable.idempotence",
            "compression.type",
            "delivery.timeout.ms",
            "transactional.id",
            "transaction.timeout.ms",
            "max.block.ms",
            "partitioner.class",
            "key.serializer",
            "value.serializer");
    /** Keys only a Java consumer has. */
    static final List<String> CONSUMER_KEYS = List.of(
            "group.id",
            "group.instance.id",
            "fetch.max.bytes",
            "max.partition.fetch.bytes",
            "fetch.min.bytes",
            "fetch.max.wait.ms",
            "max.poll.records",
            "max.poll.interval.ms",
            "auto.offset.reset",
            "enable.auto.commit",
            "isolation.level",
            "session.timeout.ms",
            "heartbeat.interval.ms",
            "partition.assignment.strategy",
            "auto.commit.interval.ms",
            "client.rack",
            "key.deserializer",
            "value.deserializer");

    private final String label;
    private final ClientKind kind;
    private final BulkFlow flow;

    ClientRole(String label, ClientKind kind, BulkFlow flow) {
        this.label = label;
        this.kind = kind;
        this.flow = flow;
    }

    String label() {
        return label;
    }

    ClientKind kind() {
        return kind;
    }

    BulkFlow flow() {
        return flow;
    }

    /** The role the doctor judges a config in, and the words the report gives for it. */
    record Decided(ClientRole role, String why) {}

    /**
     * From {@code --client} where given ({@code given}, else null), else from the config's keys.
     *
     * @throws IllegalArgumentException naming the option or the file, the value, and what is allowed
     */
    static Decided decide(String given, Properties config, String configName) {
        if (given != null) {
            for (ClientRole role : values()) {
                if (role.label.equals(given.trim().toLowerCase(Locale.ROOT))) {
                    return new Decided(role, "as a " + role.label + " (--client " + role.label + ")");
                }
            }
            throw new IllegalArgumentException("--client: '" + given + "' is not allowed; use producer or consumer");
        }
        List<String> producer = present(PRODUCER_KEYS, config);
        List<String> consumer = present(CONSUMER_KEYS, config);
        if (!producer.isEmpty() && !consumer.isEmpty()) {
            throw new IllegalArgumentException("--command-config: " + configName + " has producer keys ("
                    + String.join(", ", producer) + ") and consumer keys (" + String.join(", ", consumer)
                    + "); say which client it is with --client producer or --client consumer");
        }
        if (!producer.isEmpty()) {
            return new Decided(PRODUCER, "as a producer, from its producer keys (" + String.join(", ", producer) + ")");
        }
        if (!consumer.isEmpty()) {
            return new Decided(CONSUMER, "as a consumer, from its consumer keys (" + String.join(", ", consumer) + ")");
        }
        return new Decided(
                CONSUMER,
                "as a consumer: no key only a producer or a consumer has; --client producer judges a producer");
    }

    private static List<String> present(List<String> keys, Properties config) {
        return keys.stream().filter(config::containsKey).collect(Collectors.toList());
    }
}
