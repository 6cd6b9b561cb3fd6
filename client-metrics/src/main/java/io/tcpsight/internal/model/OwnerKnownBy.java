package io.tcpsight.internal.model;

/** How a connection's owner is known; shown per socket in /connections and the JMX worst connections. */
public enum OwnerKnownBy {
    /** Kafka's own calls named it: the agent's hooks (a client's NetworkClient, a broker's requests). */
    HOOKS("hooks"),
    /** The kernel's and the client's byte counts agreed exactly and uniquely over several rounds (plaintext only). */
    BYTE_COUNTS("byte-counts"),
    /** The process holds no other client: every socket to its brokers is its own (the doctor's probe). */
    SOLE_CLIENT("sole-client"),
    /** Not known: it raises no finding of its own, only the path summary. */
    UNPLACED("unplaced");

    private final String label;

    OwnerKnownBy(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public boolean known() {
        return this != UNPLACED;
    }
}
