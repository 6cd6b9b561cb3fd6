package io.tcpsight.agent.internal.hooks;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Optional;

/**
 * What the calls {@link KafkaHookTransformer} puts into Kafka's classes reach. Only JDK types
 * cross this boundary, so it links wherever Kafka's classes live. Every method returns at once
 * when the agent is off and never lets anything escape into Kafka: the call sites have no
 * exception handler of their own.
 */
public final class Hooks {
    /** What the agent does with the events; null while the agent is off. */
    public interface Receiver {
        /** On the thread about to connect, before its socket does; may wait there (connect pacing). */
        void connecting();

        void registered(Object selector, String connectionId, SocketChannel channel, long connectStartNanos);

        void connected(SocketChannel channel);

        void closing(SocketChannel channel);

        void networkClient(Object selector, String clientId);

        void request(String connectionId, Object requestContext);

        /** A request body as Kafka parsed it ({@code RequestAndSize}), on the connection it came on. */
        default void parsedRequest(Object requestAndSize, String connectionId) {}

        void failed(String where, Throwable failure);

        /** The client connection on this descriptor as the hooks named it: see {@link Hooks#clientConnection}. */
        default Optional<String[]> clientConnection(int fd) {
            return Optional.empty();
        }

        /** Whether it tracks and names connections (not without TCP_INFO). */
        default boolean namesConnections() {
            return false;
        }
    }

    private static volatile Receiver receiver;
    private static final ThreadLocal<long[]> CONNECTING = ThreadLocal.withInitial(() -> new long[1]);

    private Hooks() {}

    public static void install(Receiver value) {
        receiver = value;
    }

    /** KafkaChannel.selectionKey(), looked up once per class: Hooks must not link to Kafka. */
    private static final ClassValue<MethodHandle> SELECTION_KEY = new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
            try {
                return MethodHandles.publicLookup()
                        .findVirtual(type, "selectionKey", MethodType.methodType(SelectionKey.class))
                        .asType(MethodType.methodType(SelectionKey.class, Object.class));
            } catch (ReflectiveOperationException missing) {
                throw new IllegalStateException(type.getName() + " has no selectionKey()", missing);
            }
        }
    };

    /**
     * The failure path of every hook: the receiver's own handler may throw too (an Error while it
     * logs, a StackOverflowError that recurs), and that must not reach Kafka either.
     */
    private static void report(Receiver current, String where, Throwable failure) {
        try {
            current.failed(where, failure);
        } catch (Throwable ignored) {
            // nothing is left that could tell anyone without risking Kafka's thread
        }
    }

    /**
     * Selector.connect's entry: the registerChannel that follows on this thread is a client's,
     * started now, after any pacing wait, so the connect duration is the handshake's alone.
     */
    public static void connectStarting() {
        Receiver current = receiver;
        if (current == null) {
            return;
        }
        try {
            current.connecting();
        } catch (Throwable failure) {
            report(current, "connect pacing", failure);
        }
        try {
            CONNECTING.get()[0] = System.nanoTime();
        } catch (Throwable ignored) {
            // the connection is then seen as broker side, without a connect duration
        }
    }

    /**
     * Both Selector.connect (client side, after connectStarting) and register (broker side) pass
     * here. The start is consumed, so a connect that failed before registering leaves nothing
     * behind for a later registration: the next connect on that thread overwrites it first.
     */
    public static void registered(Object selector, String connectionId, SocketChannel channel) {
        Receiver current = receiver;
        if (current == null) {
            return;
        }
        try {
            long[] connecting = CONNECTING.get();
            long started = connecting[0];
            connecting[0] = 0;
            current.registered(selector, connectionId, channel, started);
        } catch (Throwable failure) {
            report(current, "registerChannel", failure);
        }
    }

    /** KafkaChannel.finishConnect's return: true when the client's handshake completed. */
    public static void finishedConnect(boolean connected, Object kafkaChannel) {
        Receiver current = receiver;
        if (current == null || !connected) {
            return;
        }
        try {
            SocketChannel channel = socketOf(kafkaChannel);
            if (channel != null) {
                current.connected(channel);
            }
        } catch (Throwable failure) {
            report(current, "finishConnect", failure);
        }
    }

    /** Selector.doClose's entry: released while the socket is still open. */
    public static void closingChannel(Object kafkaChannel) {
        Receiver current = receiver;
        if (current == null || kafkaChannel == null) {
            return;
        }
        try {
            SocketChannel channel = socketOf(kafkaChannel);
            if (channel != null) {
                current.closing(channel);
            }
        } catch (Throwable failure) {
            report(current, "close", failure);
        }
    }

    private static SocketChannel socketOf(Object kafkaChannel) throws Throwable {
        SelectionKey key =
                (SelectionKey) SELECTION_KEY.get(kafkaChannel.getClass()).invokeExact(kafkaChannel);
        return key == null ? null : (SocketChannel) key.channel();
    }

    public static void networkClient(Object selector, String clientId) {
        Receiver current = receiver;
        if (current == null || selector == null) {
            return;
        }
        try {
            current.networkClient(selector, clientId);
        } catch (Throwable failure) {
            report(current, "NetworkClient", failure);
        }
    }

    /**
     * Whose client connection a descriptor is, as the hooks know it ({@code {clientId, nodeId or "",
     * flow, inode}}), or null: for the tcpsight parts that run in the same JVM in other class
     * loaders (the Connect plugin, the reporter), which find this class on the boot class path and
     * then name sockets from the hooks, never from a second guess. {@link #namesClientConnections}
     * says whether an agent receives the hooks at all (it stays off without TCP_INFO).
     */
    public static boolean namesClientConnections() {
        Receiver current = receiver;
        try {
            return current != null && current.namesConnections();
        } catch (Throwable failure) {
            report(current, "namesConnections", failure);
            return false;
        }
    }

    public static String[] clientConnection(int fd) {
        Receiver current = receiver;
        if (current == null) {
            return null;
        }
        try {
            return current.clientConnection(fd).orElse(null);
        } catch (Throwable failure) {
            report(current, "clientConnection", failure);
            return null;
        }
    }

    /** Called for every request on the broker: must stay cheap. */
    public static void request(String connectionId, Object requestContext) {
        Receiver current = receiver;
        if (current == null) {
            return;
        }
        try {
            current.request(connectionId, requestContext);
        } catch (Throwable failure) {
            report(current, "RequestContext", failure);
        }
    }

    /** Called for every request body the broker parses: must stay cheap. */
    public static void parsedRequest(Object requestAndSize, String connectionId) {
        Receiver current = receiver;
        if (current == null) {
            return;
        }
        try {
            current.parsedRequest(requestAndSize, connectionId);
        } catch (Throwable failure) {
            report(current, "RequestContext.parseRequest", failure);
        }
    }
}
