package io.tcpsight.agent.internal.hooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The transformer applied to the real kafka-clients classes on the test classpath, loaded in a
 * child-first loader so that the JVM verifies the rewritten bytes and real Kafka code runs
 * through the hooks on real loopback sockets. BrokerAgentIT and AgentLabIT prove the same on
 * Kafka 3.9.2 and 4.3.1 brokers, at premain and on attach.
 */
class KafkaHookTransformerTest {
    private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    private final KafkaHookTransformer transformer =
            new KafkaHookTransformer((type, failure) -> failures.add(type + ": " + failure));

    @AfterEach
    void agentOff() {
        Hooks.install(null);
    }

    @Test
    void kafkasOwnSelectorNetworkClientAndRequestContextReachTheHooks() throws Exception {
        Recorder recorder = new Recorder();
        Hooks.install(recorder);
        HookedLoader loader = new HookedLoader(transformer, getClass().getClassLoader());
        @SuppressWarnings("unchecked")
        Supplier<Object> exercise = (Supplier<Object>) loader.loadClass(HookedKafkaExercise.class.getName())
                .getConstructor()
                .newInstance();

        Object selector = exercise.get();

        assertEquals(List.of(), failures);
        assertEquals(KafkaHookTransformer.CLASS_NAMES, loader.rewritten, "all four classes rewritten");
        assertEquals(2, recorder.registered.size(), "client and broker side registered: " + recorder.registered);
        Registered client = recorder.registered.get(0);
        assertEquals("node-1", client.connectionId);
        assertSame(selector, client.selector);
        assertTrue(client.connectStartNanos != 0, "the client side carries its connect start");
        assertEquals(1, recorder.connecting, "one connect");
        Registered broker = recorder.registered.get(1);
        assertEquals("broker-side-1", broker.connectionId);
        assertEquals(0, broker.connectStartNanos, "a registration outside connect is the broker side");
        assertEquals(List.of(client.channel), recorder.connected, "finishConnect reported the client's handshake once");
        assertTrue(
                recorder.closing.containsAll(List.of(client.channel, broker.channel)),
                "both released on close: " + recorder.closing);
        assertEquals(List.of("exercise-client"), recorder.clientIds);
        assertSame(selector, recorder.networkClientSelectors.get(0));
        assertEquals(List.of("broker-side-1"), recorder.requests, "the delegating constructor reports once");
        assertNull(recorder.failure, "no hook failed");
    }

    @Test
    void aClassWithoutTheExpectedSignaturesIsReportedAndLoadsUnchanged() throws IOException {
        byte[] unrelated;
        try (InputStream in = getClass().getResourceAsStream("KafkaHookTransformerTest.class")) {
            unrelated = in.readAllBytes();
        }
        assertNull(transformer.transform(null, "org/apache/kafka/common/network/Selector", null, null, unrelated));
        assertEquals(1, failures.size());
        assertTrue(failures.get(0).startsWith("org.apache.kafka.common.network.Selector: "), failures.get(0));
        assertTrue(failures.get(0).contains("lacks connect(String, InetSocketAddress, int, int)"), failures.get(0));
        assertNull(
                transformer.transform(null, "org/apache/kafka/clients/Metadata", null, null, unrelated),
                "other classes untouched");
        assertNull(transformer.transform(null, "java/lang/String", null, null, unrelated));
    }

    @Test
    void parameterSlotsCountLongsTwice() {
        assertEquals(1, HookPoint.slotOfFirst("(Ljava/lang/String;J)V", "Ljava/lang/String;"));
        assertEquals(5, HookPoint.slotOfFirst("(JDLjava/lang/String;)V", "Ljava/lang/String;"));
        assertEquals(-1, HookPoint.slotOfFirst("(JD)V", "Ljava/lang/String;"));
    }

    static final class Registered {
        final Object selector;
        final String connectionId;
        final SocketChannel channel;
        final long connectStartNanos;

        Registered(Object selector, String connectionId, SocketChannel channel, long connectStartNanos) {
            this.selector = selector;
            this.connectionId = connectionId;
            this.channel = channel;
            this.connectStartNanos = connectStartNanos;
        }

        @Override
        public String toString() {
            return connectionId + (connectStartNanos != 0 ? " (client)" : " (broker)");
        }
    }

    static final class Recorder implements Hooks.Receiver {
        final List<Registered> registered = Collections.synchronizedList(new ArrayList<>());
        final List<SocketChannel> connected = Collections.synchronizedList(new ArrayList<>());
        final List<SocketChannel> closing = Collections.synchronizedList(new ArrayList<>());
        final List<Object> networkClientSelectors = Collections.synchronizedList(new ArrayList<>());
        final List<String> clientIds = Collections.synchronizedList(new ArrayList<>());
        final List<String> requests = Collections.synchronizedList(new ArrayList<>());
        volatile Throwable failure;
        volatile int connecting;

        @Override
        public void connecting() {
            connecting++;
        }

        @Override
        public void registered(Object selector, String connectionId, SocketChannel channel, long connectStartNanos) {
            registered.add(new Registered(selector, connectionId, channel, connectStartNanos));
        }

        @Override
        public void connected(SocketChannel channel) {
            connected.add(channel);
        }

        @Override
        public void closing(SocketChannel channel) {
            assertNotNull(channel);
            assertTrue(channel.isOpen(), "released while the socket is still open");
            closing.add(channel);
        }

        @Override
        public void networkClient(Object selector, String clientId) {
            networkClientSelectors.add(selector);
            clientIds.add(clientId);
        }

        @Override
        public void request(String connectionId, Object requestContext) {
            requests.add(connectionId);
        }

        @Override
        public void failed(String where, Throwable failure) {
            this.failure = failure;
        }
    }
}
