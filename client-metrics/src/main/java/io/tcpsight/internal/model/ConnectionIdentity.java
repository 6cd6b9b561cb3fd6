package io.tcpsight.internal.model;

import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * Who a connection belongs to, as far as it is known. Immutable; the with-methods return a
 * completed copy (the broker learns a connection's client.id only from its first request).
 */
public final class ConnectionIdentity {
    private final Role role;
    private final String clientId;
    private final String nodeId;
    private final String listener;
    private final String principal;
    private final String clientSoftware;
    private final BulkFlow knownFlow;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final OwnerKnownBy ownerKnownBy;

    private ConnectionIdentity(Parts parts) {
        this.role = parts.role;
        this.clientId = parts.clientId;
        this.nodeId = parts.nodeId;
        this.listener = parts.listener;
        this.principal = parts.principal;
        this.clientSoftware = parts.clientSoftware;
        this.knownFlow = parts.knownFlow;
        this.local = parts.local;
        this.remote = parts.remote;
        this.ownerKnownBy = parts.ownerKnownBy;
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

    private Parts parts() {
        Parts parts = new Parts();
        parts.role = role;
        parts.clientId = clientId;
        parts.nodeId = nodeId;
        parts.listener = listener;
        parts.principal = principal;
        parts.clientSoftware = clientSoftware;
        parts.knownFlow = knownFlow;
        parts.local = local;
        parts.remote = remote;
        parts.ownerKnownBy = ownerKnownBy;
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
        return ownerKnownBy;
    }

    public Role role() {
        return role;
    }

    /** Empty while not known (the broker learns it from the first request). */
    public Optional<String> clientId() {
        return Optional.ofNullable(clientId);
    }

    public Optional<String> nodeId() {
        return Optional.ofNullable(nodeId);
    }

    public Optional<String> listener() {
        return Optional.ofNullable(listener);
    }

    public Optional<String> principal() {
        return Optional.ofNullable(principal);
    }

    /** Empty until the client's ApiVersions request announced it (KIP-511; clients before Kafka 2.4 never do). */
    public Optional<String> clientSoftware() {
        return Optional.ofNullable(clientSoftware);
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
        return ClientKind.fromClientId(clientId);
    }

    /** Which way bulk data flows: as known, else as the client's kind implies. */
    public BulkFlow bulkFlow() {
        return knownFlow != BulkFlow.UNKNOWN ? knownFlow : BulkFlow.forClient(clientId, clientKind());
    }

    /** UNKNOWN unless known (the agent saw the requests, or the owner said); a plain read, for the agent's request hook. */
    public BulkFlow knownFlow() {
        return knownFlow;
    }

    /**
     * The library at the client end. This process is a Java client when it is the client end (the
     * reporter, the Connect plugin), unless its owner named another library (the doctor, judging
     * for a librdkafka client); a broker knows it from KIP-511 or guesses from the client.id.
     */
    public ClientLibrary clientLibrary() {
        if (role == Role.CLIENT) {
            // this process's own client, unless its owner says which library it speaks for (the doctor's
            // --client-library)
            return clientSoftware == null ? ClientLibrary.JAVA : ClientLibrary.fromSoftware(clientSoftware);
        }
        ClientLibrary announced = ClientLibrary.fromSoftware(clientSoftware);
        return announced != ClientLibrary.UNKNOWN || clientSoftware != null
                ? announced
                : ClientLibrary.fromClientId(clientId);
    }

    /** "client.id=X node=1 listener=PLAINTEXT peer=10.0.0.2:9092", with what is known. */
    public String describe() {
        StringBuilder text = new StringBuilder(role.label());
        append(text, "client.id", clientId);
        append(text, "node", nodeId);
        append(text, "listener", listener);
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
