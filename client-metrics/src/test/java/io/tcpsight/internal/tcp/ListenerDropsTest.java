package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** A listener's own drops, on real loopback sockets: a burst against one listener counts on that one only. */
class ListenerDropsTest {
    @Test
    void aFullAcceptQueueCountsOnItsOwnListener() throws Exception {
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        List<SocketChannel> burst = new ArrayList<>();
        try (ServerSocketChannel full = ServerSocketChannel.open().bind(loopback, 1);
                ServerSocketChannel calm = ServerSocketChannel.open().bind(loopback, 1)) {
            int fullFd = TcpSockets.fileDescriptor(full);
            int calmFd = TcpSockets.fileDescriptor(calm);
            assertEquals(OptionalLong.of(0), TcpSockets.socketDrops(fullFd), "a new listener has dropped nothing");
            for (int i = 0; i < 8; i++) {
                SocketChannel client = SocketChannel.open();
                client.configureBlocking(false);
                client.connect(full.getLocalAddress());
                burst.add(client);
            }
            long deadline = System.nanoTime() + 2_000_000_000L;
            long dropped = 0;
            while (dropped == 0 && System.nanoTime() < deadline) {
                dropped = TcpSockets.socketDrops(fullFd).orElse(0);
                Thread.sleep(10);
            }
            assertTrue(dropped > 0, "8 connects on a queue of 2 dropped on that listener");
            assertEquals(OptionalLong.of(0), TcpSockets.socketDrops(calmFd), "the other listener dropped nothing");
        } finally {
            for (SocketChannel client : burst) {
                client.close();
            }
        }
    }

    @Test
    void aDescriptorWithoutASocketHasNoCount() {
        assertTrue(TcpSockets.socketDrops(-1).isEmpty());
    }
}
