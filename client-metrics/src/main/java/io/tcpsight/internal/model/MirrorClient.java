package io.tcpsight.internal.model;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kafka client MirrorMaker 2 builds itself (not through Connect's worker), known by the
 * client.id MM2 gives it: {@code [client.id|]SOURCE->TARGET|CONNECTOR|ROLE}, e.g.
 * {@code far->near|MirrorSourceConnector-0|replication-consumer} (a task's client: the task's name). Its settings come from the MM2
 * connector's config ({@code consumer.*}, {@code source.consumer.*}, ...), never from the
 * worker's {@code consumer.*} or a {@code consumer.override.*}.
 */
public final class MirrorClient {
    private static final Pattern TASK = Pattern.compile("^(.+)-\\d+$");
    /** The roles MM2 gives clients its tasks build: their client.id names the task, not the connector. */
    private static final Set<String> TASK_ROLES = Set.of(
            "replication-consumer",
            "offset-syncs-source-producer",
            "offset-syncs-target-producer",
            "offset-syncs-source-consumer",
            "offset-syncs-target-consumer",
            "checkpoints-target-consumer");

    private static final Pattern CLIENT_ID = Pattern.compile("^(?:.*\\|)?([^|]+)->([^|]+)\\|([^|]+)\\|([a-z-]+)$");

    private final String sourceAlias;
    private final String targetAlias;
    private final String connector;
    private final String role;

    private MirrorClient(String sourceAlias, String targetAlias, String connector, String role) {
        this.sourceAlias = sourceAlias;
        this.targetAlias = targetAlias;
        this.connector = connector;
        this.role = role;
    }

    /** The MM2 client a client.id names, or empty when it follows no MM2 convention. */
    public static Optional<MirrorClient> fromClientId(String clientId) {
        if (clientId == null || !clientId.contains("->")) {
            return Optional.empty(); // every client's kind asks, each sampling round: no regex for most
        }
        Matcher matcher = CLIENT_ID.matcher(clientId);
        if (!matcher.matches()
                || !(isConsumer(matcher.group(4))
                        || isProducer(matcher.group(4))
                        || matcher.group(4).endsWith("-admin"))) {
            return Optional.empty();
        }
        String role = matcher.group(4);
        String connector = matcher.group(3);
        Matcher task = TASK.matcher(connector);
        if (TASK_ROLES.contains(role) && task.matches()) {
            connector = task.group(1); // a task's clients carry its name, CONNECTOR-N
        }
        return Optional.of(new MirrorClient(matcher.group(1), matcher.group(2), connector, role));
    }

    /**
     * Whether it carries bulk data: the replication consumer fetches the replicated data; every
     * other MM2 client (offset syncs, checkpoints, admin) moves little, whatever its type.
     */
    public boolean readsReplicatedData() {
        return role.equals("replication-consumer");
    }

    private static boolean isConsumer(String role) {
        return role.endsWith("-consumer");
    }

    private static boolean isProducer(String role) {
        return role.endsWith("-producer");
    }

    public String sourceAlias() {
        return sourceAlias;
    }

    public String targetAlias() {
        return targetAlias;
    }

    public String connector() {
        return connector;
    }

    /** MM2's name for what the client does: replication-consumer, offset-syncs-source-producer, ... */
    public String role() {
        return role;
    }

    /**
     * Whether the client talks to the source cluster: the replication consumer and every
     * "-source-" role. The others (the "-target-" roles) talk to the target.
     */
    public boolean talksToSource() {
        return role.equals("replication-consumer") || role.contains("-source-");
    }

    /** The alias of the cluster this client talks to. */
    public String clusterAlias() {
        return talksToSource() ? sourceAlias : targetAlias;
    }

    /** "consumer", "producer" or "admin": the client prefix MM2's configs use for it. */
    public String clientType() {
        return isConsumer(role) ? "consumer" : isProducer(role) ? "producer" : "admin";
    }

    /**
     * The MM2 connector key for a client setting of this client and its side's clients only:
     * {@code source.consumer.receive.buffer.bytes} (MirrorConnectorConfig reads {@code consumer.*},
     * then {@code source.consumer.*} over it, for a source-side consumer).
     */
    public String connectorKey(String clientKey) {
        return sidePrefix() + clientKey;
    }

    /** The connector-config prefixes of this client's settings, the later over the earlier. */
    public List<String> connectorPrefixes() {
        return List.of(clientType() + ".", sidePrefix());
    }

    private String sidePrefix() {
        return (talksToSource() ? "source." : "target.") + clientType() + ".";
    }

    /**
     * The dedicated MirrorMaker 2 key (mm2.properties) for the same: {@code ALIAS.consumer.KEY},
     * which MirrorMakerConfig hands to the connector as {@code source.consumer.KEY} for every flow
     * out of (or {@code target.consumer.KEY} into) that cluster.
     */
    public String dedicatedKey(String clientKey) {
        return clusterAlias() + "." + clientType() + "." + clientKey;
    }
}
