package io.tcpsight.internal.tcp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/** Real loopback TCP connections for tests: a listener and connected client/accepted pairs. Closes everything it opened. */
public final class LoopbackConnections implements AutoCloseable {
    public final ServerSocketChannel listener;
    public final List<SocketChannel> clients = new ArrayList<>();
    public final List<SocketChannel> accepted = new ArrayList<>();

    public LoopbackConnections(InetAddress address, int backlog) throws IOException {
        listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress(address, 0), backlog);
    }

    public static LoopbackConnections ipv4() throws IOException {
        return new LoopbackConnections(InetAddress.getLoopbackAddress(), 1024);
    }

    public int port() throws IOException {
        return ((InetSocketAddress) listener.getLocalAddress()).getPort();
    }

    /** Connects a client (with SO_RCVBUF set before connect when receiveBuffer > 0) and accepts it. */
    public SocketChannel connectPair(int receiveBuffer) throws IOException {
        SocketChannel client = connectOnly(receiveBuffer);
        accepted.add(listener.accept());
        return client;
    }

    /** Connects without accepting, so the connection waits in the listener's accept queue. */
    public SocketChannel connectOnly(int receiveBuffer) throws IOException {
        SocketChannel client = SocketChannel.open();
        clients.add(client);
        if (receiveBuffer > 0) {
            client.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
        }
        client.connect(listener.getLocalAddress());
        return client;
    }

    /** Opens n pairs. */
    public LoopbackConnections pairs(int n) throws IOException {
        for (int i = 0; i < n; i++) {
            connectPair(0);
        }
        return this;
    }

    /** Sends bytes from one channel and reads them all at the other. */
    public static void transfer(SocketChannel from, SocketChannel to, int bytes) throws IOException {
        ByteBuffer out = ByteBuffer.allocate(64 * 1024);
        ByteBuffer in = ByteBuffer.allocate(64 * 1024);
        int sent = 0;
        int received = 0;
        from.configureBlocking(false);
        to.configureBlocking(false);
        try {
            while (received < bytes) {
                if (sent < bytes) {
                    out.clear();
                    out.limit(Math.min(out.capacity(), bytes - sent));
                    sent += from.write(out);
                }
                in.clear();
                received += Math.max(0, to.read(in));
            }
        } finally {
            from.configureBlocking(true);
            to.configureBlocking(true);
        }
    }

    @Override
    public void close() throws IOException {
        for (SocketChannel channel : clients) {
            channel.close();
        }
        for (SocketChannel channel : accepted) {
            channel.close();
        }
        listener.close();
    }
}
