package io.tcpsight.internal.export;

import io.micrometer.core.instrument.Tags;
import io.tcpsight.internal.model.ConnectionIdentity;
import java.util.Optional;

/** The tags a connection's meters carry: its role, listener and node.id, "unknown" where not known. */
public final class ConnectionTags {
    public static final String UNKNOWN = "unknown";

    private ConnectionTags() {}

    public static Tags of(ConnectionIdentity identity) {
        return Tags.of(
                "role",
                identity.role().label(),
                "listener",
                orUnknown(identity.listener()),
                "node.id",
                orUnknown(identity.nodeId()));
    }

    public static String orUnknown(Optional<String> value) {
        return value.filter(text -> !text.isEmpty()).orElse(UNKNOWN);
    }
}
