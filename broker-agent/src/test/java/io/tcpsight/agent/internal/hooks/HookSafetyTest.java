package io.tcpsight.agent.internal.hooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kafka keeps working whatever the agent meets: Kafka classes whose members differ from the ones
 * the hooks expect (the reference check leaves them unchanged, one report per class, no class half
 * hooked), and a receiver that throws anything, even from its own failure handler.
 */
class HookSafetyTest {
    private static final String SELECTOR = "org.apache.kafka.common.network.Selector";
    private static final String KAFKA_CHANNEL = "org.apache.kafka.common.network.KafkaChannel";
    private static final String NETWORK_CLIENT = "org.apache.kafka.clients.NetworkClient";
    private static final String REQUEST_CONTEXT = "org.apache.kafka.common.requests.RequestContext";

    private final List<String> reports = Collections.synchronizedList(new ArrayList<>());
    private final KafkaHookTransformer transformer =
            new KafkaHookTransformer((type, failure) -> reports.add(type + ": " + failure.getMessage()));

    @AfterEach
    void agentOff() {
        Hooks.install(null);
    }

    @Test
    void aRequestContextWithoutItsConnectionIdFieldLoadsUnchangedAndKafkaServes() throws Exception {
        KafkaHookTransformerTest.Recorder recorder = new KafkaHookTransformerTest.Recorder();
        HookedLoader loader = run(
                recorder,
                Map.of(
                        HookPoints.REQUEST_CONTEXT,
                        KafkaMutation.renameField(HookPoints.REQUEST_CONTEXT, "connectionId", "channelId")));

        assertEquals(Set.of(SELECTOR, KAFKA_CHANNEL, NETWORK_CLIENT), loader.rewritten);
        assertOneReport(REQUEST_CONTEXT, "field String connectionId");
        assertEquals(List.of(), recorder.requests, "no request hook without the field");
        assertEquals(2, recorder.registered.size(), "the other hooks still work");
    }

    @Test
    void aRequestContextWithoutAFieldTheAgentReadsByReflectionLoadsUnchanged() throws Exception {
        KafkaHookTransformerTest.Recorder recorder = new KafkaHookTransformerTest.Recorder();
        HookedLoader loader = run(
                recorder,
                Map.of(
                        HookPoints.REQUEST_CONTEXT,
                        KafkaMutation.renameField(
                                HookPoints.REQUEST_CONTEXT, RequestContextReads.LISTENER_NAME, "listener")));

        assertEquals(Set.of(SELECTOR, KAFKA_CHANNEL, NETWORK_CLIENT), loader.rewritten);
        assertOneReport(REQUEST_CONTEXT, "public field listenerName");
        assertEquals(List.of(), recorder.requests, "no request hook that could not name the request");
    }

    @Test
    void aSelectorWhoseCloseWasRenamedIsNotHalfHooked() throws Exception {
        KafkaHookTransformerTest.Recorder recorder = new KafkaHookTransformerTest.Recorder();
        HookedLoader loader = run(
                recorder,
                Map.of(
                        HookPoints.SELECTOR,
                        KafkaMutation.renameMethod(HookPoints.SELECTOR, "doClose", "closeChannel")));

        assertEquals(Set.of(KAFKA_CHANNEL, NETWORK_CLIENT, REQUEST_CONTEXT), loader.rewritten);
        assertOneReport(SELECTOR, "doClose(KafkaChannel, boolean)");
        assertEquals(List.of(), recorder.registered, "no registration that no close would release");
        assertEquals(List.of(), recorder.closing);
    }

    @Test
    void aKafkaChannelWithoutAPublicSelectionKeyTurnsOffTheSelectorsHooksToo() throws Exception {
        KafkaHookTransformerTest.Recorder recorder = new KafkaHookTransformerTest.Recorder();
        HookedLoader loader = run(recorder, Map.of(HookPoints.KAFKA_CHANNEL, KafkaMutation.hideMethod("selectionKey")));

        assertEquals(Set.of(NETWORK_CLIENT, REQUEST_CONTEXT), loader.rewritten);
        assertEquals(2, reports.size(), reports.toString());
        assertTrue(
                reports.stream()
                        .anyMatch(report -> report.startsWith(SELECTOR + ": ")
                                && report.contains("public KafkaChannel.selectionKey()")),
                reports.toString());
        assertTrue(
                reports.stream()
                        .anyMatch(report ->
                                report.startsWith(KAFKA_CHANNEL + ": ") && report.contains("public selectionKey()")),
                reports.toString());
        assertEquals(List.of(), recorder.registered);
    }

    static Stream<Throwable> failures() {
        return Stream.of(
                new IllegalStateException("receiver broke"),
                new StackOverflowError("receiver recursed"),
                new OutOfMemoryError("receiver ran out"));
    }

    @ParameterizedTest
    @MethodSource("failures")
    void aReceiverThatThrowsEvenFromItsFailureHandlerNeverReachesKafka(Throwable thrown) throws Exception {
        ThrowingReceiver receiver = new ThrowingReceiver(thrown);

        HookedLoader loader = run(receiver, Map.of());

        assertEquals(KafkaHookTransformer.CLASS_NAMES, loader.rewritten);
        assertEquals(List.of(), reports);
        assertTrue(receiver.calls >= 6, "every hook ran and threw: " + receiver.calls);
        assertTrue(receiver.failedCalls >= 6, "every failure reached the handler, which threw too");
    }

    /** Runs Kafka's own Selector, NetworkClient and RequestContext through the hooks; Kafka must finish normally. */
    private HookedLoader run(Hooks.Receiver receiver, Map<String, UnaryOperator<byte[]>> mutations) throws Exception {
        Hooks.install(receiver);
        HookedLoader loader = new HookedLoader(transformer, getClass().getClassLoader(), mutations);
        @SuppressWarnings("unchecked")
        Supplier<Object> exercise = (Supplier<Object>) loader.loadClass(HookedKafkaExercise.class.getName())
                .getConstructor()
                .newInstance();
        exercise.get();
        return loader;
    }

    private void assertOneReport(String type, String missing) {
        assertEquals(1, reports.size(), reports.toString());
        assertTrue(reports.get(0).startsWith(type + ": this Kafka version lacks "), reports.get(0));
        assertTrue(reports.get(0).contains(missing), reports.get(0));
    }

    private static final class ThrowingReceiver implements Hooks.Receiver {
        private final Throwable thrown;
        volatile int calls;
        volatile int failedCalls;

        ThrowingReceiver(Throwable thrown) {
            this.thrown = thrown;
        }

        private void fail() {
            calls++;
            sneakyThrow(thrown);
        }

        @SuppressWarnings("unchecked")
        private static <T extends Throwable> void sneakyThrow(Throwable failure) throws T {
            throw (T) failure;
        }

        @Override
        public void connecting() {
            fail();
        }

        @Override
        public void registered(Object selector, String connectionId, SocketChannel channel, long connectStartNanos) {
            fail();
        }

        @Override
        public void connected(SocketChannel channel) {
            fail();
        }

        @Override
        public void closing(SocketChannel channel) {
            fail();
        }

        @Override
        public void networkClient(Object selector, String clientId) {
            fail();
        }

        @Override
        public void request(String connectionId, Object requestContext) {
            fail();
        }

        @Override
        public void failed(String where, Throwable failure) {
            failedCalls++;
            sneakyThrow(thrown);
        }
    }
}
