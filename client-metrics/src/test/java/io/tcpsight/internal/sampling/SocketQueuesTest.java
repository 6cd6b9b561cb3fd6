package io.tcpsight.internal.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpsight.internal.model.ConnectionIdentity;
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
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The queues of a sampled connection (unread and unacknowledged bytes) are the kernel's in every
 * round, whether the sampler read them or knew them still empty: real loopback sockets that go
 * quiet, receive, are read, write, and go quiet again.
 */
class SocketQueuesTest {
    @BeforeEach
    void nativeLibrary() {
        NativeLibrary.assumeLoaded();
    }

    @Test
    void everyRoundShowsTheKernelsQueuesThroughQuietAndBusyRounds() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(10);
        ConnectionSampler sampler = new ConnectionSampler(registry);
        try (ServerSocketChannel listener =
                        ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(listener.getLocalAddress());
                SocketChannel server = listener.accept()) {
            int fd = TcpSockets.fileDescriptor(client);
            TrackedConnection tracked = registry.track(
                            fd,
                            TcpSockets.socketInode(fd).orElse(0),
                            ConnectionIdentity.of(
                                    Role.CLIENT, (InetSocketAddress) client.getLocalAddress(), (InetSocketAddress)
                                            client.getRemoteAddress()))
                    .orElseThrow();
            assertQueues(sampler, tracked, 0, 0, "a new connection");
            assertQueues(sampler, tracked, 0, 0, "quiet");
            server.write(ByteBuffer.wrap(new byte[7]));
            awaitArrival(client, 7);
            assertQueues(sampler, tracked, 7, 0, "seven bytes arrived, unread");
            assertQueues(sampler, tracked, 7, 0, "still unread, nothing moved");
            client.read(ByteBuffer.allocate(7));
            assertQueues(sampler, tracked, 0, 0, "read");
            assertQueues(sampler, tracked, 0, 0, "quiet again");
            server.write(ByteBuffer.wrap(new byte[3]));
            awaitArrival(client, 10);
            assertQueues(sampler, tracked, 3, 0, "three more arrived after quiet rounds");
            client.read(ByteBuffer.allocate(3));
            client.write(ByteBuffer.wrap(new byte[5]));
            Thread.sleep(50); // acknowledged on loopback at once
            assertQueues(sampler, tracked, 0, 0, "read, and five written and acknowledged");
        }
    }

    private static void assertQueues(
            ConnectionSampler sampler, TrackedConnection tracked, long unread, long unacked, String when) {
        sampler.sample();
        ConnectionSample sample = tracked.latest().orElseThrow();
        assertEquals(OptionalLong.of(unread), sample.unreadBytes(), "unread bytes, " + when);
        assertEquals(OptionalLong.of(unacked), sample.unackedBytes(), "unacknowledged bytes, " + when);
    }

    /** Until the socket has received {@code total} bytes in all (loopback delivers within milliseconds). */
    private static void awaitArrival(SocketChannel channel, int total) throws IOException, InterruptedException {
        for (int i = 0;
                i < 200
                        && TcpSockets.tcpInfo(channel)
                                        .get(TcpInfoField.BYTES_RECEIVED)
                                        .orElse(0)
                                < total;
                i++) {
            Thread.sleep(5);
        }
    }
}
