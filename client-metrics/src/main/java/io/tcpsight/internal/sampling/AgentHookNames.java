package io.tcpsight.internal.sampling;

import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.OwnerKnownBy;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Names from the tcpsight agent's hooks when the agent runs in this JVM: it sees every Kafka
 * client's NetworkClient and the sockets it opens, so its names are certain. The agent puts its
 * hook class on the boot class path, where any class loader finds it (a Connect plugin's too);
 * only JDK types cross. Without the agent, {@link #present()} is false and nothing is named here.
 */
public final class AgentHookNames {
    private static final String HOOKS = "io.tcpsight.agent.internal.hooks.Hooks";
    private static final MethodHandle CLIENT_CONNECTION = lookUp("clientConnection", String[].class, int.class);
    private static final MethodHandle NAMES = lookUp("namesClientConnections", boolean.class);

    private AgentHookNames() {}

    private static MethodHandle lookUp(String method, Class<?> returns, Class<?>... parameters) {
        try {
            Class<?> hooks = Class.forName(HOOKS, false, null);
            return MethodHandles.publicLookup().findStatic(hooks, method, MethodType.methodType(returns, parameters));
        } catch (ReflectiveOperationException | LinkageError | SecurityException noAgent) {
            return null; // no agent in this JVM, or one without this lookup
        }
    }

    /** Whether an agent that names client sockets runs in this JVM (it stays off without TCP_INFO). */
    public static boolean present() {
        if (CLIENT_CONNECTION == null || NAMES == null) {
            return false;
        }
        try {
            return (boolean) NAMES.invokeExact();
        } catch (Throwable unexpected) {
            return false;
        }
    }

    /**
     * The identity change that names a tracked socket as the agent's hooks know it: client.id, the
     * broker's node and the flow; empty when the agent does not know this socket (the same descriptor
     * with another inode is another socket).
     */
    public static Optional<UnaryOperator<ConnectionIdentity>> naming(TrackedConnection connection) {
        if (CLIENT_CONNECTION == null) {
            return Optional.empty();
        }
        String[] owner;
        try {
            owner = (String[]) CLIENT_CONNECTION.invokeExact(connection.fd());
        } catch (Throwable unexpected) {
            return Optional.empty();
        }
        if (owner == null || owner.length < 4 || !owner[3].equals(Long.toString(connection.inode()))) {
            return Optional.empty();
        }
        BulkFlow flow = flow(owner[2]);
        String node = owner[1].isEmpty() ? null : owner[1];
        return Optional.of(identity -> {
            ConnectionIdentity named = identity.withClientId(owner[0]).ownerKnownBy(OwnerKnownBy.HOOKS);
            named = flow == BulkFlow.UNKNOWN ? named : named.withFlow(flow);
            return node == null ? named : named.withNodeId(node);
        });
    }

    private static BulkFlow flow(String name) {
        try {
            return BulkFlow.valueOf(name);
        } catch (IllegalArgumentException unknown) {
            return BulkFlow.UNKNOWN;
        }
    }
}
