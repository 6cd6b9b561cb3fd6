package io.tcpsight.agent;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tcpsight.internal.tcp.TcpSockets;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A connected pair of real loopback sockets opened before any agent runtime exists, as a broker's
 * connections are on an attach: the accepted end is the broker side. Needs the native library
 * (in CI its absence fails the test that uses it, elsewhere it skips).
 */
final class OpenLoopbackPair implements AutoCloseable {
    private final ServerSocketChannel listener;
    private final SocketChannel client;
    private final SocketChannel accepted;

    private OpenLoopbackPair(ServerSocketChannel listener, SocketChannel client, SocketChannel accepted) {
        this.listener = listener;
        this.client = client;
        this.accepted = accepted;
    }

    static OpenLoopbackPair open() throws IOException {
        assumeTrue(
                TcpSockets.availability().isAvailable(), // in CI a failure (NoSkipsInCi)
                "no native library here: " + TcpSockets.availability().reason());
        ServerSocketChannel listener =
                ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        SocketChannel client = SocketChannel.open(listener.getLocalAddress());
        return new OpenLoopbackPair(listener, client, listener.accept());
    }

    InetSocketAddress brokerSide() throws IOException {
        return (InetSocketAddress) accepted.getLocalAddress();
    }

    /** The accepted end, as the broker's processor holds it. */
    SocketChannel brokerChannel() {
        return accepted;
    }

    InetSocketAddress clientSide() throws IOException {
        return (InetSocketAddress) client.getLocalAddress();
    }

    @Override
    public void close() throws IOException {
        try (listener;
                client;
                accepted) {
            // all three closed, in reverse
        }
    }
}
