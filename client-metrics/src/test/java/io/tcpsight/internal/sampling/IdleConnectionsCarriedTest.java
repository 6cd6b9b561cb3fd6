package io.tcpsight.internal.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.model.PushedClientMetrics;
import io.tcpsight.internal.model.PushedClientMetrics.Figure;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.tcp.TcpInfoField;
import io.tcpsight.internal.tcp.TcpSockets;
import io.tcpsight.testing.NativeLibrary;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An idle connection whose every request is told (the broker agent's) is read every twelfth round and
 * carried unread in the others; a request has it read in the next round, with the interval that round
 * would have had. Real loopback sockets: the broker's end is tracked, the client's end writes.
 */
class IdleConnectionsCarriedTest {
    private ServerSocketChannel listener;
    private SocketChannel client;
    private SocketChannel server;
    private ConnectionRegistry registry;
    private ConnectionSampler sampler;
    /** The pairs a test opened beside the first ({@link #anotherBrokerEnd}), closed after it. */
    private final List<SocketChannel> clients = new ArrayList<>();

    private final List<SocketChannel> servers = new ArrayList<>();

    @BeforeEach
    void loopbackPair() throws IOException {
        NativeLibrary.assumeLoaded();
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        client = SocketChannel.open(listener.getLocalAddress());
        server = listener.accept();
        registry = new ConnectionRegistry(10);
        sampler = new ConnectionSampler(registry);
    }

    @AfterEach
    void close() throws IOException {
        for (SocketChannel channel : clients) {
            channel.close();
        }
        for (SocketChannel channel : servers) {
            channel.close();
        }
        if (listener != null) {
            server.close();
            client.close();
            listener.close();
        }
    }

    @Test
    void anIdleConnectionWhoseRequestsAreToldIsReadOnceInItsPhaseOfRoundsSetByItsDescriptor() throws Exception {
        TrackedConnection tracked = brokerEnd();
        tracked.requestsTold();
        List<Boolean> carried = rounds(tracked, 3 + 2 * ConnectionSampler.IDLE_READ_EVERY);
        // three reads before any carry: the first sample, then two that found nothing moved
        assertEquals(List.of(false, false, false), carried.subList(0, 3), carried.toString());
        for (int round = 3; round < carried.size(); round++) {
            boolean phase = (round + tracked.fd()) % ConnectionSampler.IDLE_READ_EVERY == 0;
            assertEquals(!phase, carried.get(round), "round " + round + " of " + carried);
        }
    }

    @Test
    void aConnectionWhoseRequestsAreNotToldIsReadEveryRound() throws Exception {
        TrackedConnection tracked = brokerEnd();
        List<Boolean> carried = rounds(tracked, 3 + 2 * ConnectionSampler.IDLE_READ_EVERY);
        assertFalse(carried.contains(true), carried.toString());
    }

    @Test
    void aConnectionItsPeerClosedIsReadEveryRound() throws Exception {
        TrackedConnection tracked = brokerEnd();
        tracked.requestsTold();
        client.close(); // the broker's end in CLOSE_WAIT, nothing moving on it after the FIN's ACK
        List<Boolean> carried = rounds(tracked, 3 + 2 * ConnectionSampler.IDLE_READ_EVERY);
        assertFalse(carried.contains(true), "not established: " + carried);
    }

    @Test
    void aConnectionAClientPushedItsOwnFiguresOnIsReadEveryRound() throws Exception {
        TrackedConnection tracked = brokerEnd();
        tracked.requestsTold();
        tracked.pushed(new PushedClientMetrics("instance", System.nanoTime(), Map.of(Figure.RECORDS_LAG_MAX, 5.0)));
        List<Boolean> carried = rounds(tracked, 3 + 2 * ConnectionSampler.IDLE_READ_EVERY);
        assertFalse(carried.contains(true), "its figures age: " + carried);
    }

    @Test
    void aCarriedConnectionKeepsItsSampleAndIsReturnedWithTheRound() throws Exception {
        TrackedConnection tracked = brokerEnd();
        tracked.requestsTold();
        ConnectionSample before = null;
        for (int round = 0; round < 3 + ConnectionSampler.IDLE_READ_EVERY; round++) {
            before = tracked.latest().orElse(null);
            List<TrackedConnection> sampled = sampler.sample();
            assertEquals(List.of(tracked), sampled, "round " + round);
            if (tracked.carried()) {
                assertSame(before, tracked.latest().orElseThrow(), "a carried round keeps the last sample");
                return;
            }
        }
        throw new AssertionError("never carried");
    }

    @Test
    void aRequestHasACarriedConnectionReadInTheNextRoundOverThatRoundsInterval() throws Exception {
        TrackedConnection tracked = brokerEnd();
        tracked.requestsTold();
        long[] lastCarriedRound = carriedAtLeast(tracked, 2); // carried in the last two rounds, 50 ms apart
        ConnectionSample carriedSample = tracked.latest().orElseThrow();

        client.write(ByteBuffer.wrap(new byte[1000]));
        awaitArrival(1000);
        server.read(ByteBuffer.allocate(1000)); // the broker reads the request
        tracked.requested(); // and its hook is told of it
        sampler.sample();

        assertFalse(tracked.carried(), "read in the round after the request");
        ConnectionSample read = tracked.latest().orElseThrow();
        assertNotSame(carriedSample, read);
        IntervalStats interval = read.interval().orElseThrow();
        assertEquals(1000, interval.bytesReceived(), "the request's bytes in this interval");
        // the round that carried it decided between these two instants: the interval starts there
        double longest = (read.nanoTime - lastCarriedRound[0]) / 1e9;
        double shortest = (read.nanoTime - lastCarriedRound[1]) / 1e9;
        double sinceLastRead = (read.nanoTime - carriedSample.nanoTime) / 1e9;
        assertTrue(
                interval.seconds() >= shortest && interval.seconds() <= longest,
                "counted from the round before, which carried it (" + shortest + " to " + longest
                        + " s), not from its last read " + sinceLastRead + " s ago: " + interval.seconds() + " s");
        // quiet again: carried again once two reads found nothing moved
        List<Boolean> after = rounds(tracked, 3 + ConnectionSampler.IDLE_READ_EVERY);
        assertEquals(List.of(false, false), after.subList(0, 2), after.toString());
        assertTrue(after.contains(true), "carried again: " + after);
    }

    @Test
    void bytesThatMovedWithoutAToldRequestAreReadAtItsPhaseAndItIsReadEveryRoundAfter() throws Exception {
        TrackedConnection tracked = brokerEnd();
        tracked.requestsTold();
        carriedAtLeast(tracked, 1);
        ConnectionSample lastRead = tracked.latest().orElseThrow();
        client.write(ByteBuffer.wrap(new byte[700])); // no request told: only the phase read finds it
        awaitArrival(700);
        server.read(ByteBuffer.allocate(700));
        int round = 0;
        while (tracked.carried()) {
            sampler.sample();
            assertTrue(++round <= ConnectionSampler.IDLE_READ_EVERY, "read within its phase's rounds");
        }
        ConnectionSample read = tracked.latest().orElseThrow();
        assertEquals(700, read.interval().orElseThrow().bytesReceived());
        // no request woke it: the bytes may have moved at any time since its last read, which its interval spans
        assertEquals(
                (read.nanoTime - lastRead.nanoTime) / 1e9,
                read.interval().orElseThrow().seconds(),
                1e-6);
        List<Boolean> after = rounds(tracked, 2);
        assertEquals(List.of(false, false), after, "moved: read until two reads find it quiet again");
    }

    /**
     * Several connections at once, in different phases, one of them not told of its requests and one closed
     * among them: each is read or carried by its own state, the round returns them in the registry's order,
     * and the closed one is let go at its next read. Whether the round reads them in one batch, in batches
     * of one, or in batches that split them unevenly.
     */
    @ParameterizedTest(name = "batches of {0}")
    @ValueSource(ints = {ConnectionSampler.BATCH, 1, 3})
    void eachOfSeveralConnectionsIsReadOrCarriedByItsOwnStateAndPhase(int batchSize) throws Exception {
        sampler = new ConnectionSampler(registry, batchSize);
        List<TrackedConnection> tracked = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            tracked.add(anotherBrokerEnd());
        }
        TrackedConnection notTold = tracked.get(1);
        TrackedConnection closed = tracked.get(2);
        for (TrackedConnection connection : tracked) {
            if (connection != notTold) {
                connection.requestsTold();
            }
        }
        List<TrackedConnection> inOrder = registry.connections();
        for (int round = 0; round < 3 + 2 * ConnectionSampler.IDLE_READ_EVERY; round++) {
            if (round == 6) {
                servers.get(2).close(); // gone without a release: the sampler finds it when it reads it
            }
            List<TrackedConnection> sampled = sampler.sample();
            List<TrackedConnection> expected = new ArrayList<>(inOrder);
            if (!closed.isTracked()) {
                expected.remove(closed);
            }
            assertEquals(expected, sampled, "round " + round + ": the registry's order");
            for (TrackedConnection connection : tracked) {
                if (connection == closed && round >= 6) {
                    continue;
                }
                boolean phase = (round + connection.fd()) % ConnectionSampler.IDLE_READ_EVERY == 0;
                boolean carried = connection != notTold && round >= 3 && !phase;
                assertEquals(carried, connection.carried(), "round " + round + ", " + connection);
            }
        }
        assertFalse(closed.isTracked(), "let go at a read after its close");
        assertEquals(1, sampler.goneDescriptors());
    }

    /**
     * A request wakes a carried connection that its batch reads behind two it carries: its interval is the
     * round before's, as for a connection alone (what a batch keeps for each connection it reads is that
     * connection's, not the one at its place among all).
     */
    @Test
    void aRequestWakesACarriedConnectionBehindOthersItsRoundCarries() throws Exception {
        List<TrackedConnection> tracked = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            tracked.add(anotherBrokerEnd());
            tracked.get(i).requestsTold();
        }
        TrackedConnection woken = tracked.get(2);
        assertEquals(tracked, registry.connections(), "read in this order");
        // until all three were carried in the last two rounds, and the next round is none's to be read in
        int rounds = 0;
        int row = 0;
        long[] last = new long[2];
        while (rounds < 4 * ConnectionSampler.IDLE_READ_EVERY && (row < 2 || inAPhase(tracked, rounds))) {
            Thread.sleep(50);
            last[0] = System.nanoTime();
            sampler.sample();
            last[1] = System.nanoTime();
            rounds++;
            row = tracked.stream().allMatch(TrackedConnection::carried) ? row + 1 : 0;
        }
        assertTrue(row >= 2 && !inAPhase(tracked, rounds), "carried, and not read next in a phase");

        clients.get(2).write(ByteBuffer.wrap(new byte[1000]));
        awaitArrival(servers.get(2), 1000);
        servers.get(2).read(ByteBuffer.allocate(1000));
        woken.requested();
        sampler.sample();

        assertTrue(tracked.get(0).carried() && tracked.get(1).carried(), "the two before it carried");
        assertFalse(woken.carried(), "read in the round after its request");
        ConnectionSample read = woken.latest().orElseThrow();
        IntervalStats interval = read.interval().orElseThrow();
        assertEquals(1000, interval.bytesReceived());
        double longest = (read.nanoTime - last[0]) / 1e9;
        double shortest = (read.nanoTime - last[1]) / 1e9;
        assertTrue(
                interval.seconds() >= shortest && interval.seconds() <= longest,
                "counted from the round before (" + shortest + " to " + longest + " s): " + interval.seconds());
    }

    /** Whether round {@code round} is any of these connections' to be read in, idle or not. */
    private static boolean inAPhase(List<TrackedConnection> connections, int round) {
        return connections.stream().anyMatch(c -> (round + c.fd()) % ConnectionSampler.IDLE_READ_EVERY == 0);
    }

    /** Another loopback pair from the listener: its broker end tracked, both ends closed after the test. */
    private TrackedConnection anotherBrokerEnd() throws IOException {
        clients.add(SocketChannel.open(listener.getLocalAddress()));
        servers.add(listener.accept());
        return brokerEnd(servers.get(servers.size() - 1));
    }

    private TrackedConnection brokerEnd() throws IOException {
        return brokerEnd(server);
    }

    private TrackedConnection brokerEnd(SocketChannel server) throws IOException {
        int fd = TcpSockets.fileDescriptor(server);
        return registry.track(
                        fd,
                        TcpSockets.socketInode(fd).orElse(0),
                        ConnectionIdentity.of(
                                Role.BROKER, (InetSocketAddress) server.getLocalAddress(), (InetSocketAddress)
                                        server.getRemoteAddress()))
                .orElseThrow();
    }

    /** Whether each of {@code count} rounds, 10 ms apart, carried the connection. */
    private List<Boolean> rounds(TrackedConnection tracked, int count) throws InterruptedException {
        List<Boolean> carried = new ArrayList<>();
        for (int round = 0; round < count; round++) {
            assertEquals(List.of(tracked), sampler.sample());
            carried.add(tracked.carried());
            Thread.sleep(10);
        }
        return carried;
    }

    /**
     * Rounds 50 ms apart until the last {@code inARow} carried it; returns when the last round began and
     * ended, between which it decided.
     */
    private long[] carriedAtLeast(TrackedConnection tracked, int inARow) throws InterruptedException {
        int row = 0;
        long[] last = new long[2];
        for (int round = 0; round < 4 * ConnectionSampler.IDLE_READ_EVERY && row < inARow; round++) {
            Thread.sleep(50);
            last[0] = System.nanoTime();
            sampler.sample();
            last[1] = System.nanoTime();
            row = tracked.carried() ? row + 1 : 0;
        }
        assertEquals(inARow, row, "carried " + inARow + " rounds in a row");
        return last;
    }

    private void awaitArrival(int total) throws IOException, InterruptedException {
        awaitArrival(server, total);
    }

    private static void awaitArrival(SocketChannel server, int total) throws IOException, InterruptedException {
        for (int i = 0;
                i < 200
                        && TcpSockets.tcpInfo(server)
                                        .get(TcpInfoField.BYTES_RECEIVED)
                                        .orElse(0)
                                < total;
                i++) {
            Thread.sleep(5);
        }
    }
}
