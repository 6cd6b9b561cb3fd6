package io.tcpsight.diagnose;

import io.tcpsight.model.ClientKind;
import io.tcpsight.model.ConnectionIdentity;
import io.tcpsight.model.Role;
import java.util.ArrayList;
import java.util.List;

/** Which configuration key controls a buffer or fetch size, for each kind of connection end. */
final class KafkaKeys {
    private KafkaKeys() {}

    /** The receive buffer of this end of the connection. */
    static List<Setting> ownReceiveBuffer(ConnectionIdentity identity, String value) {
        if (identity.role() == Role.BROKER) {
            return List.of(new Setting("broker", "socket.receive.buffer.bytes", value));
        }
        return client(identity, "receive.buffer.bytes", value);
    }

    /** The send buffer of this end. */
    static List<Setting> ownSendBuffer(ConnectionIdentity identity, String value) {
        if (identity.role() == Role.BROKER) {
            return List.of(new Setting("broker", "socket.send.buffer.bytes", value));
        }
        return client(identity, "send.buffer.bytes", value);
    }

    /** The receive buffer of the other end: the client's when this is the broker, the broker's otherwise. */
    static List<Setting> peerReceiveBuffer(ConnectionIdentity identity, String value) {
        if (identity.role() == Role.BROKER) {
            return client(identity, "receive.buffer.bytes", value);
        }
        return List.of(new Setting("broker", "socket.receive.buffer.bytes", value));
    }

    /** A client setting, named as the client's kind spells it (Connect worker and override, replica fetcher). */
    static List<Setting> client(ConnectionIdentity identity, String key, String value) {
        ClientKind kind = identity.clientKind();
        List<Setting> settings = new ArrayList<>();
        if (kind.isConnect()) {
            settings.add(new Setting("connect-worker", kind.connectWorkerPrefix() + key, value));
            String connector =
                    identity.clientId().flatMap(ClientKind::connectorName).orElse("?");
            settings.add(new Setting("connector " + connector, kind.connectorOverridePrefix() + key, value));
        } else if (kind == ClientKind.REPLICA_FETCHER) {
            settings.add(new Setting("broker", replicaKey(key), value));
        } else {
            settings.add(new Setting("client", key, value));
        }
        return settings;
    }

    private static String replicaKey(String clientKey) {
        switch (clientKey) {
            case "fetch.max.bytes":
                return "replica.fetch.response.max.bytes";
            case "max.partition.fetch.bytes":
                return "replica.fetch.max.bytes";
            default:
                return "replica.socket.receive.buffer.bytes";
        }
    }
}
