package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Without the native library (an unsupported platform, a directory it may not load from) the agent
 * tracks no connection but keeps what needs none: connect pacing and its meters on the endpoint,
 * and the host's listen-overflow counters. Before, the whole agent stopped at start.
 */
class AgentWithoutNativeLibraryTest {

    @Test
    void connectPacingAndTheEndpointRunWithoutTcpInfo() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        AgentSettings settings =
                AgentSettings.parse("port=" + port + ",connect.rate=1,connect.burst=1,connect.max.wait=0ms");
        AgentAssembly runtime = new AgentAssembly(settings, AgentLog.create(), false);
        try (ServerSocketChannel listener =
                        ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(listener.getLocalAddress())) {
            runtime.start(AgentLog.create());
            runtime.hooks().connecting(); // the only permit
            runtime.hooks().connecting(); // would wait a second, past connect.max.wait=0ms: goes ahead, counted
            runtime.hooks().registered(new Object(), "1", client, System.nanoTime()); // no TCP_INFO: not tracked
            String metrics = get(port);
            assertTrue(metrics.startsWith("HTTP/1.1 200"), metrics);
            assertTrue(metrics.contains("tcpsight_connects_paced_total 2.0"), metrics);
            assertTrue(metrics.contains("tcpsight_connects_capped_total 1.0"), metrics);
            assertTrue(runtime.tracked().isEmpty(), "nothing tracked without TCP_INFO");
        } finally {
            runtime.close();
        }
    }

    private static String get(int port) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(5000);
            socket.getOutputStream()
                    .write("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
