package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** TCP_INFO read through JNI agrees with ss, which reads the same sockets over netlink. */
class TcpInfoMatchesSsTest {

    @Test
    void establishedConnectionAgreesWithSsOnBothEnds() throws Exception {
        try (LoopbackConnections loopback = LoopbackConnections.ipv4()) {
            SocketChannel client = loopback.connectPair(0);
            SocketChannel server = loopback.accepted.get(0);
            LoopbackConnections.transfer(client, server, 256 * 1024);
            LoopbackConnections.transfer(server, client, 1024);
            Thread.sleep(50); // let the last ACKs land, so nothing moves while both tools read
            for (SocketChannel channel : new SocketChannel[] {client, server}) {
                TcpInfo before = TcpSockets.tcpInfo(channel);
                SsOutput ss = SsOutput.connection(
                        (InetSocketAddress) channel.getLocalAddress(), (InetSocketAddress) channel.getRemoteAddress());
                TcpInfo after = TcpSockets.tcpInfo(channel);

                assertEquals(TcpState.ESTABLISHED, before.state());
                assertEquals("ESTAB", ss.header[0]);
                int[] scales = ss.windowScales();
                assertEquals(scales[0], before.sndWindowScale(), "snd wscale");
                assertEquals(scales[1], before.rcvWindowScale(), "rcv wscale");
                assertEquals(ss.words.contains("ts"), before.options().timestamps(), "timestamps");
                assertEquals(ss.words.contains("sack"), before.options().sack(), "sack");
                assertTrue(before.options().windowScaling(), "loopback negotiates window scaling");
                assertEquals(ss.number("mss"), before.sndMss(), "mss");
                assertEquals(ss.number("cwnd"), before.sndCwnd(), "cwnd");
                assertEquals(ss.number("rcv_space"), before.rcvSpaceBytes(), "rcv_space");
                assertEquals(ss.number("snd_wnd"), before.sndWindowBytes().getAsLong(), "snd_wnd");
                long ssRtt = ss.micros("rtt");
                assertTrue(
                        ssRtt == before.rttMicros() || ssRtt == after.rttMicros(),
                        "rtt: ss " + ssRtt + "us, TCP_INFO " + before.rttMicros() + "/" + after.rttMicros() + "us");
                assertTrue(
                        ss.values.get("ino").equals(Long.toString(inodeOf(channel))),
                        "ss and the census see the same socket");
            }
        }
    }

    @Test
    void listenerQueueAgreesWithSsRecvQAndSendQ() throws Exception {
        try (LoopbackConnections loopback = new LoopbackConnections(InetAddress.getLoopbackAddress(), 7)) {
            for (int i = 0; i < 3; i++) {
                loopback.connectOnly(0);
            }
            ListenQueue queue = TcpSockets.listenQueue(loopback.listener);
            String[] ss =
                    SsOutput.run("-ltnH", "sport = :" + loopback.port()).trim().split("\\s+");
            assertEquals("LISTEN", ss[0]);
            assertEquals(Long.parseLong(ss[1]), queue.acceptQueueLength(), "Recv-Q is the accept queue");
            assertEquals(Long.parseLong(ss[2]), queue.effectiveBacklog(), "Send-Q is the effective backlog");
            assertEquals(3, queue.acceptQueueLength());
            assertEquals(7, queue.effectiveBacklog());
        }
    }

    @Test
    void receiveBufferIsReportedDoubled() throws Exception {
        try (LoopbackConnections loopback = LoopbackConnections.ipv4()) {
            SocketChannel client = loopback.connectPair(65536);
            assertEquals(131072, TcpSockets.bufferState(client).receiveBufferBytes());
        }
    }

    @Test
    void receiveBufferSetBeforeConnectFixesWindowScaleAndClamp() throws Exception {
        try (LoopbackConnections loopback = LoopbackConnections.ipv4()) {
            SocketChannel small = loopback.connectPair(65536);
            SocketChannel smallPeer = loopback.accepted.get(0);
            SocketChannel autotuned = loopback.connectPair(0);
            SocketChannel autotunedPeer = loopback.accepted.get(1);
            // 32 MiB towards each client gives autotuning every reason to grow the window.
            LoopbackConnections.transfer(smallPeer, small, 32 << 20);
            LoopbackConnections.transfer(autotunedPeer, autotuned, 32 << 20);

            SocketBufferState smallState = TcpSockets.bufferState(small);
            SocketBufferState autotunedState = TcpSockets.bufferState(autotuned);
            assertTrue(
                    smallState.windowClampBytes() > 0 && smallState.windowClampBytes() <= 131072,
                    "clamp " + smallState.windowClampBytes() + " stays within the locked buffer");
            // how far autotuning grows over loopback depends on how fast this thread reads: 3.6x once on a busy machine
            assertTrue(
                    autotunedState.windowClampBytes() > 2 * smallState.windowClampBytes(),
                    "autotuning grew the clamp to " + autotunedState.windowClampBytes() + ", the locked one stays at "
                            + smallState.windowClampBytes());

            TcpInfo smallInfo = TcpSockets.tcpInfo(small);
            TcpInfo autotunedInfo = TcpSockets.tcpInfo(autotuned);
            assertTrue(
                    smallInfo.rcvWindowScale() < autotunedInfo.rcvWindowScale(),
                    "scale chosen at SYN time from the buffer: " + smallInfo.rcvWindowScale() + " < "
                            + autotunedInfo.rcvWindowScale());
            SsOutput ss = SsOutput.connection(
                    (InetSocketAddress) small.getLocalAddress(), (InetSocketAddress) small.getRemoteAddress());
            assertEquals(ss.windowScales()[1], smallInfo.rcvWindowScale());
            assertTrue(
                    smallInfo.rcvWindowBytes().getAsLong() <= smallState.windowClampBytes(),
                    "advertised window " + smallInfo.rcvWindowBytes() + " never exceeds the clamp");
        }
    }

    @Test
    void closedChannelGivesAClearException() throws Exception {
        try (LoopbackConnections loopback = LoopbackConnections.ipv4()) {
            SocketChannel client = loopback.connectPair(0);
            client.close();
            TcpSocketException failure = assertThrows(TcpSocketException.class, () -> TcpSockets.tcpInfo(client));
            assertTrue(failure.getMessage().contains("closed"), failure.getMessage());
        }
    }

    @Test
    void invalidDescriptorGivesErrnoNotACrash() {
        TcpSocketException failure = assertThrows(TcpSocketException.class, () -> TcpSockets.tcpInfo(-1));
        assertEquals(Errno.EBADF, failure.errno());
        assertTrue(failure.getMessage().contains("EBADF"), failure.getMessage());
        TcpSocketException stdin = assertThrows(TcpSocketException.class, () -> TcpSockets.bufferState(0));
        assertFalse(stdin.getMessage().isEmpty());
    }

    @Test
    void congestionControlCanBeReadAndSetOnlyToWhatTheKernelHas() throws Exception {
        try (LoopbackConnections loopback = LoopbackConnections.ipv4()) {
            SocketChannel client = loopback.connectPair(0);
            String before = TcpSockets.bufferState(client).congestionControl();
            assertFalse(before.isEmpty());
            TcpSockets.setCongestionControl(client, "reno");
            assertEquals("reno", TcpSockets.bufferState(client).congestionControl());
            TcpSocketException unknown =
                    assertThrows(TcpSocketException.class, () -> TcpSockets.setCongestionControl(client, "no-such-cc"));
            assertEquals(Errno.ENOENT, unknown.errno());
            assertTrue(
                    unknown.getMessage().contains("net.ipv4.tcp_available_congestion_control"), unknown.getMessage());
        }
    }

    private static long inodeOf(SocketChannel channel) throws Exception {
        int fd = TcpSockets.fileDescriptor(channel);
        String link = Files.readSymbolicLink(Paths.get("/proc/self/fd/" + fd)).toString();
        return Long.parseLong(link.substring("socket:[".length(), link.length() - 1));
    }
}
