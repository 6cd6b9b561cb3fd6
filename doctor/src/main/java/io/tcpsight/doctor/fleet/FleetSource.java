package io.tcpsight.doctor.fleet;

import java.net.URI;
import java.util.OptionalInt;

/**
 * One place the fleet's report reads findings from: a broker's agent (by the broker's node id) or a
 * Connect worker's plugin, and the URL of its findings.
 */
record FleetSource(Kind kind, String label, URI findings, OptionalInt nodeId) {
    enum Kind {
        BROKER,
        WORKER
    }

    /** A broker's agent at {@code base} (scheme, host and port): its /findings. */
    static FleetSource broker(int nodeId, URI base) {
        return new FleetSource(Kind.BROKER, "broker " + nodeId, base.resolve("/findings"), OptionalInt.of(nodeId));
    }

    /** A Connect worker's REST at {@code base}: the plugin's /tcpsight/findings. */
    static FleetSource worker(URI base) {
        return new FleetSource(
                Kind.WORKER,
                "worker " + base.getHost() + ":" + base.getPort(),
                base.resolve("/tcpsight/findings"),
                OptionalInt.empty());
    }
}
