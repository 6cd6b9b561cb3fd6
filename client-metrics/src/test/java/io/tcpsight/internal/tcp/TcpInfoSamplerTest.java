package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;

class TcpInfoSamplerTest {

    @Test
    void batchedEntriesEqualSingleCallsAndBadEntriesCarryTheirOwnError() throws Exception {
        try (LoopbackConnections loopback = LoopbackConnections.ipv4();
                DatagramChannel udp = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Pipe pipe = Pipe.open();
            SocketChannel client = loopback.connectPair(0);
            SocketChannel closed = loopback.connectPair(0);
            int closedFd = TcpSockets.fileDescriptor(closed);
            closed.close();
            int[] fds = {
                TcpSockets.fileDescriptor(client),
                TcpSockets.fileDescriptor(loopback.listener),
                -1,
                TcpSockets.fileDescriptor(udp),
                NativeTcp.fileDescriptor(pipe.source()),
            };
            TcpInfoSampler sampler = new TcpInfoSampler(2);
            sampler.sample(fds, fds.length);
            assertEquals(5, sampler.count());

            TcpInfo single = TcpSockets.tcpInfo(client);
            assertTrue(sampler.succeeded(0));
            assertTrue(sampler.error(0).isEmpty());
            assertEquals(single.filledBytes(), sampler.filledBytes(0));
            for (TcpInfoField stable : new TcpInfoField[] {
                TcpInfoField.STATE,
                TcpInfoField.OPTIONS,
                TcpInfoField.SND_WSCALE,
                TcpInfoField.RCV_WSCALE,
                TcpInfoField.SND_MSS,
                TcpInfoField.ADVMSS,
                TcpInfoField.RCV_SPACE,
                TcpInfoField.SND_WND
            }) {
                assertEquals(single.get(stable).getAsLong(), sampler.value(0, stable), stable.kernelName());
            }
            assertEquals(TcpState.ESTABLISHED, sampler.snapshot(0).state());
            assertEquals(TcpState.LISTEN.code(), sampler.value(1, TcpInfoField.STATE));

            assertEquals(Errno.EBADF, sampler.errno(2));
            assertTrue(
                    sampler.error(2).orElse("").startsWith("EBADF"),
                    sampler.error(2).toString());
            assertTrue(
                    Errno.isNotTcp(sampler.errno(3)), "udp: " + sampler.error(3).orElse(""));
            assertTrue(
                    sampler.error(3).orElse("").contains("not a TCP socket"),
                    sampler.error(3).toString());
            assertEquals(Errno.ENOTSOCK, sampler.errno(4));
            assertFalse(sampler.has(4, TcpInfoField.RTT));
            assertThrows(IllegalStateException.class, () -> sampler.value(4, TcpInfoField.RTT));
            assertThrows(TcpSocketException.class, () -> sampler.snapshot(2));

            // The closed channel's descriptor number is sampled like any other; it is either
            // free (EBADF) or reused by something else, and never crashes the JVM.
            sampler.sample(new int[] {closedFd}, 1);
            assertEquals(1, sampler.count());
            pipe.source().close();
            pipe.sink().close();
        }
    }

    @Test
    void samplerGrowsBeyondItsInitialCapacity() throws Exception {
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(40)) {
            int[] fds = new int[80];
            for (int i = 0; i < 40; i++) {
                fds[2 * i] = TcpSockets.fileDescriptor(loopback.clients.get(i));
                fds[2 * i + 1] = TcpSockets.fileDescriptor(loopback.accepted.get(i));
            }
            TcpInfoSampler sampler = new TcpInfoSampler(4);
            sampler.sample(fds, fds.length);
            for (int i = 0; i < fds.length; i++) {
                assertEquals(TcpState.ESTABLISHED.code(), sampler.value(i, TcpInfoField.STATE), "entry " + i);
            }
            assertThrows(IllegalArgumentException.class, () -> sampler.sample(fds, fds.length + 1));
            assertThrows(IndexOutOfBoundsException.class, () -> sampler.value(fds.length, TcpInfoField.STATE));
        }
    }
}
