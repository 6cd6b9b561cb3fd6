package io.tcpsight.internal.model;

/**
 * How a Kafka client names its connections: by the broker's node id, negative for a bootstrap
 * server, and {@code Integer.MAX_VALUE - id} for the group coordinator (a second connection to
 * the same broker, so group traffic never waits behind fetches).
 */
public final class ClientConnectionIds {
    public static final String BOOTSTRAP = "bootstrap";

    private ClientConnectionIds() {}

    /** The broker node a client-side connection id points at, {@link #BOOTSTRAP}, or null when it is no node id. */
    public static String brokerNode(String connectionId) {
        try {
            int id = Integer.parseInt(connectionId);
            if (id < 0) {
                return BOOTSTRAP;
            }
            return Integer.toString(id > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE - id : id);
        } catch (NumberFormatException notANode) {
            return null;
        }
    }

    /**
     * What one connection of a client of this type carries: a consumer's connection to its group
     * coordinator and any client's bootstrap connection carry group or metadata requests only.
     */
    public static BulkFlow flow(BulkFlow clientType, String connectionId) {
        String node = brokerNode(connectionId);
        boolean coordinatorOrBootstrap = BOOTSTRAP.equals(node) || (node != null && !node.equals(connectionId));
        return coordinatorOrBootstrap ? BulkFlow.NONE : clientType;
    }
}
