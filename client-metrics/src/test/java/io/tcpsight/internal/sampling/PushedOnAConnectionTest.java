package io.tcpsight.internal.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.PushedClientMetrics;
import io.tcpsight.internal.model.PushedClientMetrics.Figure;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/**
 * The pushes a connection keeps (KIP-714): the newest, with the lag of the one before it from the
 * same client within 90 s, so that a lag's growth is two of the client's own readings.
 */
class PushedOnAConnectionTest {
    private static final String CLIENT = "AAAAAAAAAAAAAAAAAAAAAQ";
    private static final long T0 = 1_000_000_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private static PushedClientMetrics lag(String client, long atNanos, double lag) {
        return new PushedClientMetrics(client, atNanos, Map.of(Figure.RECORDS_LAG_MAX, lag));
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

    private static OptionalDouble growth(TrackedConnection connection) {
        return connection.pushed().orElseThrow().lagGrowthPerSecond();
    }

    @Test
    void aChainOfPushesGrowsFromEachToTheNext() {
        TrackedConnection connection = connection();
        connection.pushed(lag(CLIENT, T0, 1_000));
        assertEquals(OptionalDouble.empty(), growth(connection), "one reading is no growth");
        connection.pushed(lag(CLIENT, T0 + 30 * SECOND, 4_000));
        assertEquals(OptionalDouble.of(100), growth(connection));
        connection.pushed(lag(CLIENT, T0 + 60 * SECOND, 3_400));
        assertEquals(OptionalDouble.of(-20), growth(connection), "from the second to the third, not the first");
    }

    @Test
    void anOlderPushArrivingLateLeavesTheNewerOneInPlace() {
        TrackedConnection connection = connection();
        connection.pushed(lag(CLIENT, T0 + 30 * SECOND, 4_000));
        connection.pushed(lag(CLIENT, T0, 1_000));
        assertEquals(T0 + 30 * SECOND, connection.pushed().orElseThrow().receivedNanos());
        assertEquals(
                4_000.0,
                connection.pushed().orElseThrow().figure(Figure.RECORDS_LAG_MAX).getAsDouble());
        assertEquals(OptionalDouble.empty(), growth(connection));
    }

    @Test
    void aGapLongerThanAPushStaysFreshAnotherClientOrNoLagStartsAfresh() {
        TrackedConnection stale = connection();
        stale.pushed(lag(CLIENT, T0, 1_000));
        stale.pushed(lag(CLIENT, T0 + PushedClientMetrics.FRESH_NANOS + 1, 9_000));
        assertEquals(OptionalDouble.empty(), growth(stale), "a growth over more than 90 s says little");
        TrackedConnection justFresh = connection();
        justFresh.pushed(lag(CLIENT, T0, 0));
        justFresh.pushed(lag(CLIENT, T0 + PushedClientMetrics.FRESH_NANOS, 9_000));
        assertEquals(OptionalDouble.of(100), growth(justFresh), "90 s apart: 9,000 records over 90 s");

        TrackedConnection other = connection();
        other.pushed(lag(CLIENT, T0, 1_000));
        other.pushed(lag("AAAAAAAAAAAAAAAAAAAAAg", T0 + 30 * SECOND, 4_000));
        assertEquals(OptionalDouble.empty(), growth(other), "another client's lag is not this one's earlier");

        TrackedConnection noLag = connection();
        noLag.pushed(new PushedClientMetrics(CLIENT, T0, Map.of(Figure.FETCH_LATENCY_AVG_MS, 500.0)));
        noLag.pushed(lag(CLIENT, T0 + 30 * SECOND, 4_000));
        assertEquals(OptionalDouble.empty(), growth(noLag), "the earlier push carried no lag");
        assertTrue(noLag.pushed().orElseThrow().figure(Figure.RECORDS_LAG_MAX).isPresent());
    }
}
