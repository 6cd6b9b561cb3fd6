package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.NetworkChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProcessSocketCensusTest {

    @Test
    void censusFindsExactlyTheSocketsThisTestOpened() throws Exception {
        Set<Integer> before = fds(ProcessSocketCensus.take());
        try (LoopbackConnections v4 = LoopbackConnections.ipv4();
                LoopbackConnections v6 = new LoopbackConnections(InetAddress.getByName("::1"), 16)) {
            SocketChannel v4Client = v4.connectPair(0);
            SocketChannel v6Client = v6.connectPair(0);
            Map<Integer, NetworkChannel> opened = new HashMap<>();
            for (NetworkChannel channel : new NetworkChannel[] {
                v4.listener, v4Client, v4.accepted.get(0), v6.listener, v6Client, v6.accepted.get(0)
            }) {
                opened.put(TcpSockets.fileDescriptor(channel), channel);
            }

            Map<Integer, ProcessSocket> found = new HashMap<>();
            for (ProcessSocket socket : ProcessSocketCensus.take()) {
                if (!before.contains(socket.fd())) {
                    found.put(socket.fd(), socket);
                }
            }
            assertEquals(opened.keySet(), found.keySet());
            for (Map.Entry<Integer, NetworkChannel> entry : opened.entrySet()) {
                ProcessSocket socket = found.get(entry.getKey());
                NetworkChannel channel = entry.getValue();
                assertEquals(channel.getLocalAddress(), socket.local(), "local address of fd " + entry.getKey());
                if (channel instanceof SocketChannel) {
                    assertEquals(((SocketChannel) channel).getRemoteAddress(), socket.remote());
                    assertEquals(TcpState.ESTABLISHED, socket.state());
                } else {
                    assertEquals(0, socket.remote().getPort());
                    assertEquals(TcpState.LISTEN, socket.state());
                }
            }
        }
        assertEquals(before, fds(ProcessSocketCensus.take()), "closed sockets leave the census");
    }

    @Test
    void askingEachSocketAgreesWithTheKernelsTcpTables() throws Exception {
        try (LoopbackConnections v4 = LoopbackConnections.ipv4().pairs(3);
                LoopbackConnections v6 = new LoopbackConnections(InetAddress.getByName("::1"), 16).pairs(2)) {
            v4.connectOnly(0); // one still in the accept queue: established, not yet accepted
            List<ProcessSocket> direct = ProcessSocketCensus.takeFromDescriptors(Paths.get("/proc/self/fd"));
            List<ProcessSocket> tables = ProcessSocketCensus.take(Paths.get("/proc/self"));
            assertEquals(describe(tables), describe(direct));
            assertEquals(direct.size(), ProcessSocketCensus.take().size());
        }
    }

    private static List<String> describe(List<ProcessSocket> sockets) {
        List<String> lines = new ArrayList<>();
        for (ProcessSocket socket : sockets) {
            lines.add(socket.inode() + " " + socket);
        }
        return lines;
    }

    private static Set<Integer> fds(List<ProcessSocket> sockets) {
        Set<Integer> fds = new HashSet<>();
        for (ProcessSocket socket : sockets) {
            fds.add(socket.fd());
        }
        return fds;
    }

    @Test
    void ipv4AddressesAreDecodedFromNativeOrderWords() throws Exception {
        assertEquals(new InetSocketAddress("127.0.0.1", 8080), ProcNetTcp.address("0100007F:1F90"));
        assertEquals(new InetSocketAddress("::1", 9092), ProcNetTcp.address("00000000000000000000000001000000:2384"));
    }
}
