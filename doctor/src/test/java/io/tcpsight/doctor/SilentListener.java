package io.tcpsight.doctor;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback port that completes every TCP handshake and never says a byte: what a client meets at a
 * host whose process hangs. Its accepted sockets are held open until it closes.
 */
public final class SilentListener implements AutoCloseable {
    private final ServerSocket listener;
    private final List<Socket> held = new ArrayList<>();

    public SilentListener() throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    Socket accepted = listener.accept();
                    synchronized (held) {
                        held.add(accepted);
                    }
                }
            } catch (IOException closed) {
                // the listener closed
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return listener.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        synchronized (held) {
            for (Socket socket : held) {
                socket.close();
            }
        }
    }
}
