package io.tcpsight.internal.model;

import java.util.Locale;

/**
 * Which way a connection's bulk data flows, which decides the buffers that can limit it: fetch
 * responses leave the broker through its send buffer into the client's receive window; produce
 * requests leave the client through its send buffer into the broker's receive window.
 */
public enum BulkFlow {
    /** Fetch responses: consumers, and followers fetching from a leader. */
    TO_CLIENT("fetch responses, broker to client"),
    /** Produce requests. */
    TO_BROKER("produce requests, client to broker"),
    /** Small requests and responses only: admin clients, group coordinators, metadata. */
    NONE("no bulk data (metadata, admin or coordinator requests)"),
    UNKNOWN("unknown");

    private final String description;

    BulkFlow(String description) {
        this.description = description;
    }

    /**
     * The bulk direction a request of this API (Kafka's ApiKeys name) brings to its connection:
     * Fetch and ShareFetch (KIP-932) pull record batches to the client, Produce pushes them to the
     * broker; everything else, ShareAcknowledge and the KIP-848 and share group heartbeats among
     * them, carries no bulk data.
     */
    public static BulkFlow ofRequest(String apiKey) {
        if ("FETCH".equals(apiKey) || "SHARE_FETCH".equals(apiKey)) {
            return TO_CLIENT;
        }
        return "PRODUCE".equals(apiKey) ? TO_BROKER : NONE;
    }

    public String description() {
        return description;
    }

    /** Whether bulk data arrives at the end of this role (so its receive window can bind); UNKNOWN counts as yes. */
    public boolean arrivesAt(Role end) {
        switch (this) {
            case TO_CLIENT:
                return end == Role.CLIENT;
            case TO_BROKER:
                return end == Role.BROKER;
            case NONE:
                return false;
            default:
                return true;
        }
    }

    /** Whether bulk data leaves the end of this role (so its send buffer can bind): where it arrives at the other end. */
    public boolean leaves(Role end) {
        return arrivesAt(end == Role.CLIENT ? Role.BROKER : Role.CLIENT);
    }

    /** The lower-case name used in JSON. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * What a client carries, when no request was seen: an MM2 client by its role (of its consumers
     * only the replication consumer reads bulk data), any other by its kind.
     */
    public static BulkFlow forClient(String clientId, ClientKind kind) {
        return kind.isMirror() ? forClient(clientId, UNKNOWN) : of(kind);
    }

    /** The same, where the client's type already gave a flow (its metrics' type, for the Connect plugin). */
    public static BulkFlow forClient(String clientId, BulkFlow byType) {
        return MirrorClient.fromClientId(clientId)
                .map(mirror -> mirror.readsReplicatedData() ? TO_CLIENT : NONE)
                .orElse(byType);
    }

    /**
     * What a client of this kind carries, when no request was seen. UNKNOWN for MM2's kinds: only
     * the role in the client.id tells the replication consumer from the checkpoints consumer.
     */
    public static BulkFlow of(ClientKind kind) {
        switch (kind) {
            case CONSUMER:
            case CONNECT_CONSUMER:
            case REPLICA_FETCHER:
                return TO_CLIENT;
            case PRODUCER:
            case CONNECT_PRODUCER:
                return TO_BROKER;
            case ADMIN:
                return NONE;
            default:
                return UNKNOWN;
        }
    }
}
