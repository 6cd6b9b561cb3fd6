package io.tcpsight.agent.hooks;

import java.nio.channels.SocketChannel;

/**
 * What the advice inlined into Kafka's classes calls. Only JDK types cross this boundary, so it
 * links wherever Kafka's classes live. Every method returns at once when the agent is off and
 * never lets anything escape into Kafka.
 */
public final class Hooks {
    /** What the agent does with the events; null while the agent is off. */
    public interface Receiver {
        void registered(Object selector, String connectionId, SocketChannel channel, long connectStartNanos);

        void connected(SocketChannel channel);

        void closing(SocketChannel channel);

        void networkClient(Object selector, String clientId);

        void request(String connectionId, Object requestContext);

        void failed(String where, Throwable failure);
    }

    private static volatile Receiver receiver;
    private static final ThreadLocal<long[]> CONNECTING = ThreadLocal.withInitial(() -> new long[1]);

    private Hooks() {
    }

    public static void install(Receiver value) {
        receiver = value;
    }

    public static void connectStarting() {
        if (receiver != null) {
            CONNECTING.get()[0] = System.nanoTime();
        }
    }

    public static void connectFinished() {
        if (receiver != null) {
            CONNECTING.get()[0] = 0;
        }
    }

    /** Both Selector.connect (client side, inside connectStarting/Finished) and register (broker side) pass here. */
    public static void registered(Object selector, String connectionId, SocketChannel channel) {
        Receiver current = receiver;
        if (current == null) {
            return;
        }
        try {
            current.registered(selector, connectionId, channel, CONNECTING.get()[0]);
        } catch (Throwable failure) {
            current.failed("registerChannel", failure);
        }
    }

    public static void connected(SocketChannel channel) {
        Receiver current = receiver;
        if (current == null) {
            return;
        }
        try {
            current.connected(channel);
        } catch (Throwable failure) {
            current.failed("finishConnect", failure);
        }
    }

    public static void closing(SocketChannel channel) {
        Receiver current = receiver;
        if (current == null || channel == null) {
            return;
        }
        try {
            current.closing(channel);
        } catch (Throwable failure) {
            current.failed("close", failure);
        }
    }

    public static void networkClient(Object selector, String clientId) {
        Receiver current = receiver;
        if (current == null || selector == null) {
            return;
        }
        try {
            current.networkClient(selector, clientId);
        } catch (Throwable failure) {
            current.failed("NetworkClient", failure);
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
            current.failed("RequestContext", failure);
        }
    }
}
