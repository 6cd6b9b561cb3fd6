package io.tcpsight.internal.diagnose.keys;

import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ClientLibrary;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.MirrorClient;
import io.tcpsight.internal.model.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Which configuration key controls a buffer or fetch size, for each kind of connection end and
 * each client library. Rules speak the Java client's keys ("receive.buffer.bytes", "-1" for the
 * kernel's autotuning); this class translates them into the key of the library at the client end.
 */
public final class KafkaKeys {
    private KafkaKeys() {}

    /**
     * The Java client's defaults (ConsumerConfig, ProducerConfig; linger.ms 5 since Kafka 4.0): a value
     * equal to one needs no setting.
     */
    private static final Map<String, String> JAVA_DEFAULTS = Map.of(
            "send.buffer.bytes", "131072",
            "fetch.max.bytes", "52428800",
            "max.partition.fetch.bytes", "1048576",
            "max.poll.records", "500",
            "batch.size", "16384",
            "linger.ms", "5",
            "max.request.size", "1048576",
            "buffer.memory", "33554432",
            "max.in.flight.requests.per.connection", "5");

    /** What to look for in a library this tool does not know. */
    private static final Map<String, String> IN_WORDS = Map.of(
            "receive.buffer.bytes",
            "the client library's socket receive buffer size (SO_RCVBUF)",
            "send.buffer.bytes",
            "the client library's socket send buffer size (SO_SNDBUF)",
            "fetch.max.bytes",
            "the client library's limit on the bytes of one fetch response",
            "max.partition.fetch.bytes",
            "the client library's limit on the bytes one fetch takes per partition",
            "max.poll.records",
            "the client library's limit on the records one poll returns",
            "batch.size",
            "the client library's largest batch of records for one partition, in bytes",
            "linger.ms",
            "how long the client library lets a batch wait for more records",
            "max.request.size",
            "the client library's limit on the bytes of one Produce request",
            "buffer.memory",
            "the client library's memory for records not yet acknowledged",
            "max.in.flight.requests.per.connection",
            "the client library's limit on unanswered requests per connection");

    /** The receive buffer of this end of the connection. */
    public static List<Setting> ownReceiveBuffer(ConnectionIdentity identity, String value) {
        return buffer(identity.role(), "receive", identity, value);
    }

    /** The send buffer of this end. */
    public static List<Setting> ownSendBuffer(ConnectionIdentity identity, String value) {
        return buffer(identity.role(), "send", identity, value);
    }

    /** The receive buffer of the other end: the client's when this is the broker, the broker's otherwise. */
    public static List<Setting> peerReceiveBuffer(ConnectionIdentity identity, String value) {
        return buffer(identity.role() == Role.BROKER ? Role.CLIENT : Role.BROKER, "receive", identity, value);
    }

    /** The broker's socket.DIRECTION.buffer.bytes, or the client's DIRECTION.buffer.bytes in its own key. */
    private static List<Setting> buffer(Role end, String direction, ConnectionIdentity identity, String value) {
        if (end == Role.BROKER) {
            return List.of(new Setting("broker", "socket." + direction + ".buffer.bytes", value));
        }
        return client(identity, direction + ".buffer.bytes", value);
    }

    /**
     * A client setting given by its Java key, named as the client end spells it: Connect worker and
     * connector override, a MirrorMaker 2 client's key in its connector and in a dedicated MM2's
     * mm2.properties, a follower's replica.* keys, another library's keys (LibraryKeys), or in words for an unknown
     * library. Empty when the library has no such setting.
     */
    public static List<Setting> client(ConnectionIdentity identity, String key, String value) {
        return client(identity, key, value, false);
    }

    /**
     * As {@link #client(ConnectionIdentity, String, String)}, where the client's own value is known
     * to be below the one named (the doctor read its config): no library's key is left out as if its
     * default were in effect.
     */
    public static List<Setting> clientAboveConfigured(ConnectionIdentity identity, String key, String value) {
        return client(identity, key, value, true);
    }

    private static List<Setting> client(
            ConnectionIdentity identity, String key, String value, boolean configuredBelow) {
        ClientKind kind = identity.clientKind();
        List<Setting> settings = new ArrayList<>();
        if (kind.isConnect()) {
            settings.add(new Setting("connect-worker", kind.connectWorkerPrefix() + key, value));
            String connector =
                    identity.clientId().flatMap(ClientKind::connectorName).orElse("?");
            settings.add(new Setting("connector " + connector, kind.connectorOverridePrefix() + key, value));
        } else if (kind.isMirror()) {
            MirrorClient mirror =
                    identity.clientId().flatMap(MirrorClient::fromClientId).get();
            settings.add(new Setting("connector " + mirror.connector(), mirror.connectorKey(key), value));
            settings.add(new Setting("mm2.properties", mirror.dedicatedKey(key), value));
        } else if (kind == ClientKind.REPLICA_FETCHER) {
            String replicaKey = replicaKey(key);
            if (replicaKey != null) {
                // the leader's agent judges the follower's connection too: the key is the follower's
                OptionalInt follower =
                        ClientKind.followerBrokerId(identity.clientId().orElse(null));
                Setting setting = new Setting("broker", replicaKey, value);
                settings.add(
                        follower.isPresent()
                                ? setting.withNote("on broker " + follower.getAsInt() + ", the follower")
                                : setting);
            }
        } else {
            ClientLibrary library = identity.clientLibrary();
            if (library != ClientLibrary.JAVA && library != ClientLibrary.UNKNOWN) {
                String software = identity.clientSoftware().orElse(null);
                settings.addAll(
                        configuredBelow
                                ? LibraryKeys.spellAboveConfigured(library, software, key, value)
                                : LibraryKeys.spell(library, software, key, value));
            } else if (library == ClientLibrary.UNKNOWN) {
                settings.add(Setting.unnamedClient(
                        IN_WORDS.getOrDefault(key, key),
                        Setting.AUTOTUNE.equals(value)
                                ? "unset, or the library's value for the system default, so that the kernel "
                                        + "autotunes"
                                : value));
            } else {
                settings.add(Setting.client("java", key, value)
                        .notedWhenDefault(JAVA_DEFAULTS.get(key), "the Java client's"));
            }
        }
        return settings;
    }

    private static String replicaKey(String clientKey) {
        switch (clientKey) {
            case "fetch.max.bytes":
                return "replica.fetch.response.max.bytes";
            case "max.partition.fetch.bytes":
                return "replica.fetch.max.bytes";
            case "receive.buffer.bytes":
                return "replica.socket.receive.buffer.bytes";
            default:
                return null; // a follower sends only fetch requests and has no poll
        }
    }
}
