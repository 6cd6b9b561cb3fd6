package io.tcpsight.lab;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Slowloris against a lab HTTP endpoint: connections that send the start of a request head and
 * then nothing, held open until closed. Whatever serves the endpoint must go on answering others.
 */
public final class HalfSentRequests implements AutoCloseable {
    private final List<Socket> held = new ArrayList<>();

    private HalfSentRequests() {}

    /** Opens {@code count} connections to the URL's host and port and half-sends a GET of its path to each. */
    public static HalfSentRequests hold(String url, int count) throws IOException {
        URI uri = URI.create(url);
        HalfSentRequests requests = new HalfSentRequests();
        try {
            for (int i = 0; i < count; i++) {
                Socket socket = new Socket();
                requests.held.add(socket);
                socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5000);
                socket.getOutputStream()
                        .write(("GET " + uri.getPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + "\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
            }
        } catch (IOException failure) {
            requests.close();
            throw failure;
        }
        return requests;
    }

    @Override
    public void close() {
        for (Socket socket : held) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // the test is done with it
            }
        }
    }
}
