package io.tcpsight.agent.internal.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.ProduceTraffic;
import io.tcpsight.internal.model.PushedClientMetrics;
import io.tcpsight.internal.model.PushedClientMetrics.Figure;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.SampledConnections;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * A producer's own buffer gauges, pushed on its connection (KIP-714), tell the produce rule at the
 * broker what only the producer's end could tell before: whether its records wait behind the
 * pipeline. Only a fresh push with both gauges counts.
 */
class PushedBufferTest {
    private static final long NOW = 1_000_000_000_000L;
    private static final ProduceTraffic TRAFFIC = new ProduceTraffic(10, 163_840, 2.0, 1);

    @Test
    void aFreshPushOfBothGaugesSaysWhatTheRecordsHold() {
        TrackedConnection connection = connection();
        connection.pushed(push(NOW - 1_000_000_000L, 33_554_432.0, 1_048_576.0));

        ProduceTraffic judged = BrokerConnectionIds.withPushedBuffer(TRAFFIC, connection, NOW);

        assertEquals(OptionalLong.of(32_505_856), judged.bufferHeldBytes());
        assertEquals(OptionalLong.of(33_554_432), judged.bufferTotalBytes());
    }

    @Test
    void aStalePushOrOneWithoutBothGaugesOrNoneLeavesTheTrafficAsTheBrokerSawIt() {
        TrackedConnection connection = connection();
        assertEquals(
                OptionalLong.empty(),
                BrokerConnectionIds.withPushedBuffer(TRAFFIC, connection, NOW).bufferHeldBytes());

        connection.pushed(push(NOW - PushedClientMetrics.FRESH_NANOS - 1, 33_554_432.0, 0.0));
        assertEquals(
                OptionalLong.empty(),
                BrokerConnectionIds.withPushedBuffer(TRAFFIC, connection, NOW).bufferHeldBytes());

        connection.pushed(new PushedClientMetrics(
                "AAAAAAAAAAAAAAAAAAAAAQ", NOW, Map.of(Figure.BUFFER_TOTAL_BYTES, 33_554_432.0)));
        assertEquals(
                OptionalLong.empty(),
                BrokerConnectionIds.withPushedBuffer(TRAFFIC, connection, NOW).bufferHeldBytes());

        connection.pushed(
                new PushedClientMetrics("AAAAAAAAAAAAAAAAAAAAAQ", NOW, Map.of(Figure.BUFFER_AVAILABLE_BYTES, 0.0)));
        assertEquals(
                OptionalLong.empty(),
                BrokerConnectionIds.withPushedBuffer(TRAFFIC, connection, NOW).bufferHeldBytes());

        // a connection keeps its newest push: one exactly as old as allowed, on a connection of its own
        TrackedConnection oldest = connection();
        oldest.pushed(push(NOW - PushedClientMetrics.FRESH_NANOS, 33_554_432.0, 0.0));
        assertEquals(
                OptionalLong.of(33_554_432),
                BrokerConnectionIds.withPushedBuffer(TRAFFIC, oldest, NOW).bufferHeldBytes(),
                "exactly as old as allowed");
    }

    /**
     * The path a round takes: the settings the monitor asks for each connection carry the producer's
     * Produce traffic with its pushed buffer gauges, and without a push the traffic as the broker saw it.
     */
    @Test
    void aRoundsSettingsCarryThePushedGaugesOnTheConnectionTheyCameOn() throws Exception {
        BrokerConnectionIds ids = new BrokerConnectionIds(BrokerSocketSettings.unknown("a test"));
        TrackedConnection pushedOn = connection();
        TrackedConnection other = new ConnectionRegistry(4)
                .track(
                        8,
                        0,
                        ConnectionIdentity.of(
                                Role.BROKER,
                                new InetSocketAddress("127.0.0.1", 9092),
                                new InetSocketAddress("127.0.0.1", 50001)))
                .orElseThrow();
        ids.registered("a-1", pushedOn);
        ids.registered("b-1", other);
        for (String id : new String[] {"a-1", "b-1"}) {
            TrackedConnection connection = id.equals("a-1") ? pushedOn : other;
            SampledConnections.readAt(
                    connection, System.nanoTime()); // a round reads and judges it: the interval starts
            ids.requestedSettings(connection);
            ids.find(id).produced(16_384, 1);
        }
        Thread.sleep(5);
        pushedOn.pushed(push(System.nanoTime(), 33_554_432.0, 0.0));

        SampledConnections.readAt(pushedOn, System.nanoTime()); // the next round's reads
        SampledConnections.readAt(other, System.nanoTime());
        assertEquals(
                OptionalLong.of(33_554_432),
                ids.requestedSettings(pushedOn).produceTraffic().orElseThrow().bufferHeldBytes());
        assertEquals(
                OptionalLong.empty(),
                ids.requestedSettings(other).produceTraffic().orElseThrow().bufferHeldBytes(),
                "no push on this one");
    }

    private static PushedClientMetrics push(long receivedNanos, double total, double available) {
        return new PushedClientMetrics(
                "AAAAAAAAAAAAAAAAAAAAAQ",
                receivedNanos,
                Map.of(Figure.BUFFER_TOTAL_BYTES, total, Figure.BUFFER_AVAILABLE_BYTES, available));
    }

    private static TrackedConnection connection() {
        return new ConnectionRegistry(4)
                .track(
                        7,
                        0,
                        ConnectionIdentity.of(
                                Role.BROKER,
                                new InetSocketAddress("127.0.0.1", 9092),
                                new InetSocketAddress("127.0.0.1", 50000)))
                .orElseThrow();
    }
}
