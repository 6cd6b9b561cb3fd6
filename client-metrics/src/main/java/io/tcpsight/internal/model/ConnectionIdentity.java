package io.tcpsight.internal.model;

import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Optional;

/**
 * Who a connection belongs to, as far as it is known. Immutable; the with-methods return a
 * completed copy (the broker learns a connection's client.id only from its first request).
 */
public final class ConnectionIdentity {
    /*
     * What many connections share (who owns them, under what name and where) is one object, pooled once a
     * connection holds it ({@link #shared}); the addresses, each connection's own, are held beside it. An
     * identity a connection holds is 24 bytes where it was 56, on each of a big broker's 100,000 connections,
     * since the connections of one client share its owner. Only what connections hold is pooled: the steps of
     * a chain of with-calls would otherwise fill the pool with owners no connection keeps.
     */
    private static final SharedValues<Owner> OWNERS = new SharedValues<>(16_384);

    private final Owner owner;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;

    private ConnectionIdentity(Parts parts) {
        this(new Owner(parts), parts.local, parts.remote);
    }

    private ConnectionIdentity(Owner owner, InetSocketAddress local, InetSocketAddress remote) {
        this.owner = owner;
        this.local = local;
        this.remote = remote;
    }

    /**
     * This identity with its owner the one equal owner that connections share: what a tracked connection
     * keeps. This very identity where its owner is already that one, so that keeping it again changes nothing.
     */
    public ConnectionIdentity shared() {
        Owner held = OWNERS.shared(owner);
        return held == owner ? this : new ConnectionIdentity(held, local, remote);
    }

    /** Whether the two hold the very same owner: for a test of what {@link #shared} keeps. */
    boolean sharesOwnerWith(ConnectionIdentity other) {
        return owner == other.owner;
    }

    /** The fields of one identity, changed one at a time by the with-methods. */
    private static final class Parts {
        Role role;
        String clientId;
        String nodeId;
        String listener;
        String principal;
        String clientSoftware;
        BulkFlow knownFlow = BulkFlow.UNKNOWN;
        InetSocketAddress local;
        InetSocketAddress remote;
        OwnerKnownBy ownerKnownBy = OwnerKnownBy.UNPLACED;
    }

    /** Everything of an identity but its addresses: equal for the connections of one client, and held once. */
    private static final class Owner {
        final Role role;
        final String clientId;
        final String nodeId;
        final String listener;
        final String principal;
        final String clientSoftware;
        final BulkFlow knownFlow;
        final OwnerKnownBy ownerKnownBy;
        private final int hash;

        Owner(Parts parts) {
            role = parts.role;
            clientId = parts.clientId;
            nodeId = parts.nodeId;
            listener = parts.listener;
            principal = parts.principal;
            clientSoftware = parts.clientSoftware;
            knownFlow = parts.knownFlow;
            ownerKnownBy = parts.ownerKnownBy;
            hash = Objects.hash(role, clientId, nodeId, listener, principal, clientSoftware, knownFlow, ownerKnownBy);
        }

        @Override
        public boolean equals(Object other) {
            if (this == other) {
                return true;
            }
            if (!(other instanceof Owner)) {
                return false;
            }
            Owner that = (Owner) other;
            return hash == that.hash
                    && role == that.role
                    && knownFlow == that.knownFlow
                    && ownerKnownBy == that.ownerKnownBy
                    && Objects.equals(clientId, that.clientId)
                    && Objects.equals(nodeId, that.nodeId)
                    && Objects.equals(listener, that.listener)
                    && Objects.equals(principal, that.principal)
                    && Objects.equals(clientSoftware, that.clientSoftware);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private Parts parts() {
        Parts parts = new Parts();
        parts.role = owner.role;
        parts.clientId = owner.clientId;
        parts.nodeId = owner.nodeId;
        parts.listener = owner.listener;
        parts.principal = owner.principal;
        parts.clientSoftware = owner.clientSoftware;
        parts.knownFlow = owner.knownFlow;
        parts.local = local;
        parts.remote = remote;
        parts.ownerKnownBy = owner.ownerKnownBy;
        return parts;
    }

    public static ConnectionIdentity of(Role role, InetSocketAddress local, InetSocketAddress remote) {
        Parts parts = new Parts();
        parts.role = role;
        parts.local = local;
        parts.remote = remote;
        return new ConnectionIdentity(parts);
    }

    public ConnectionIdentity withClientId(String value) {
        Parts parts = parts();
        parts.clientId = value;
        return new ConnectionIdentity(parts);
    }

    public ConnectionIdentity withNodeId(String value) {
        Parts parts = parts();
        parts.nodeId = value;
        return new ConnectionIdentity(parts);
    }

    public ConnectionIdentity withListener(String value) {
        Parts parts = parts();
        parts.listener = value;
        return new ConnectionIdentity(parts);
    }

    /** The authenticated principal; a later authentication (SASL, re-authentication) replaces it. */
    public ConnectionIdentity withPrincipal(String value) {
        Parts parts = parts();
        parts.principal = value;
        return new ConnectionIdentity(parts);
    }

    /** The client library and version the client announced (KIP-511), as "name/version", e.g. "librdkafka/1.9.2". */
    public ConnectionIdentity withClientSoftware(String value) {
        Parts parts = parts();
        parts.clientSoftware = value;
        return new ConnectionIdentity(parts);
    }

    /** The local address, once the connect completed (a client socket has none before). */
    public ConnectionIdentity withLocal(InetSocketAddress value) {
        Parts parts = parts();
        parts.local = value;
        return new ConnectionIdentity(parts);
    }

    /**
     * What the connection is known to carry: the broker saw the client's requests (fetches, produces,
     * or neither so far), or the owner knows what it does (the doctor judges a consumer's config).
     */
    public ConnectionIdentity withFlow(BulkFlow value) {
        Parts parts = parts();
        parts.knownFlow = value;
        return new ConnectionIdentity(parts);
    }

    /**
     * How the owner (client.id) became known: from Kafka's own calls and requests (the agent's
     * hooks), from byte counts that agreed exactly, or not at all. Rules name only what is known:
     * a connection still {@link OwnerKnownBy#UNPLACED} raises no finding of its own.
     */
    public ConnectionIdentity ownerKnownBy(OwnerKnownBy value) {
        Parts parts = parts();
        parts.ownerKnownBy = value;
        return new ConnectionIdentity(parts);
    }

    public OwnerKnownBy ownerKnownBy() {
        return owner.ownerKnownBy;
    }

    public Role role() {
        return owner.role;
    }

    /** Empty while not known (the broker learns it from the first request). */
    public Optional<String> clientId() {
        return Optional.ofNullable(owner.clientId);
    }

    public Optional<String> nodeId() {
        return Optional.ofNullable(owner.nodeId);
    }

    public Optional<String> listener() {
        return Optional.ofNullable(owner.listener);
    }

    public Optional<String> principal() {
        return Optional.ofNullable(owner.principal);
    }

    /** Empty until the client's ApiVersions request announced it (KIP-511; clients before Kafka 2.4 never do). */
    public Optional<String> clientSoftware() {
        return Optional.ofNullable(owner.clientSoftware);
    }

    /** Empty when not known (a client socket before its connect completed). */
    public Optional<InetSocketAddress> local() {
        return Optional.ofNullable(local);
    }

    /** Empty when not known. */
    public Optional<InetSocketAddress> remote() {
        return Optional.ofNullable(remote);
    }

    public ClientKind clientKind() {
        return ClientKind.fromClientId(owner.clientId);
    }

    /** Which way bulk data flows: as known, else as the client's kind implies. */
    public BulkFlow bulkFlow() {
        return owner.knownFlow != BulkFlow.UNKNOWN ? owner.knownFlow : BulkFlow.forClient(owner.clientId, clientKind());
    }

    /** UNKNOWN unless known (the agent saw the requests, or the owner said); a plain read, for the agent's request hook. */
    public BulkFlow knownFlow() {
        return owner.knownFlow;
    }

    /**
     * The library at the client end. This process is a Java client when it is the client end (the
     * reporter, the Connect plugin), unless its owner named another library (the doctor, judging
     * for a librdkafka client); a broker knows it from KIP-511 or guesses from the client.id.
     */
    public ClientLibrary clientLibrary() {
        if (owner.role == Role.CLIENT) {
            // this process's own client, unless its owner says which library it speaks for (the doctor's
            // --client-library)
            return owner.clientSoftware == null ? ClientLibrary.JAVA : ClientLibrary.fromSoftware(owner.clientSoftware);
        }
        ClientLibrary announced = ClientLibrary.fromSoftware(owner.clientSoftware);
        return announced != ClientLibrary.UNKNOWN || owner.clientSoftware != null
                ? announced
                : ClientLibrary.fromClientId(owner.clientId);
    }

    /** "client.id=X node=1 listener=PLAINTEXT peer=10.0.0.2:9092", with what is known. */
    public String describe() {
        StringBuilder text = new StringBuilder(owner.role.label());
        append(text, "client.id", owner.clientId);
        append(text, "node", owner.nodeId);
        append(text, "listener", owner.listener);
        append(text, "peer", address(remote));
        return text.toString();
    }

    private static void append(StringBuilder text, String key, String value) {
        if (value != null) {
            text.append(' ').append(key).append('=').append(value);
        }
    }

    /** host:port without a reverse lookup, or null. */
    public static String address(InetSocketAddress address) {
        if (address == null) {
            return null;
        }
        String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    @Override
    public String toString() {
        return describe();
    }
}
