package io.tcpsight.lab;

import io.tcpsight.internal.tcp.TcpInfo;
import io.tcpsight.internal.tcp.TcpSockets;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The far end of raw-TCP lab tests, run as a child JVM inside a namespace. Prints what it saw
 * as plain lines that the test reads.
 *
 * <pre>
 *   echo ADDRESS PORT                         echo every byte back
 *   sink ADDRESS PORT RCVBUF                  read and discard; RCVBUF > 0 sets SO_RCVBUF before listen()
 *   syn-server ADDRESS PORT BACKLOG HOLD_MS ACCEPT_MS
 *                                             listen(BACKLOG), accept nothing for HOLD_MS (or, with "stdin",
 *                                             until a line arrives on standard input), then accept for
 *                                             ACCEPT_MS and print each connection's window scaling
 *   burst ADDRESS PORT N HOLD_MS              open N connections at once, send a byte on each, hold them
 * </pre>
 */
public final class LabPeer {
    private LabPeer() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "echo":
                serve(args[1], Integer.parseInt(args[2]), -1, true);
                break;
            case "sink":
                serve(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), false);
                break;
            case "syn-server":
                synServer(
                        args[1],
                        Integer.parseInt(args[2]),
                        Integer.parseInt(args[3]),
                        holdMillis(args[4]),
                        Long.parseLong(args[5]));
                break;
            case "burst":
                burst(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Long.parseLong(args[4]));
                break;
            default:
                throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    /** "stdin" (-1: until a line arrives), else milliseconds, never negative. */
    private static long holdMillis(String hold) {
        if (hold.equals("stdin")) {
            return -1;
        }
        long millis = Long.parseLong(hold);
        if (millis < 0) {
            throw new IllegalArgumentException("HOLD_MS " + hold + " is negative; use milliseconds or stdin");
        }
        return millis;
    }

    private static void serve(String address, int port, int receiveBuffer, boolean echo) throws IOException {
        ServerSocketChannel listener = ServerSocketChannel.open();
        if (receiveBuffer > 0) {
            // Accepted sockets inherit it, and the window scale is chosen from it at SYN time.
            listener.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
        }
        listener.bind(new InetSocketAddress(address, port), 128);
        System.out.println("listening");
        while (true) {
            SocketChannel connection = listener.accept();
            Thread worker = new Thread(() -> pump(connection, echo));
            worker.setDaemon(true);
            worker.start();
        }
    }

    private static void pump(SocketChannel connection, boolean echo) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
        try (connection) {
            while (connection.read(buffer) >= 0) {
                buffer.flip();
                if (echo) {
                    while (buffer.hasRemaining()) {
                        connection.write(buffer);
                    }
                }
                buffer.clear();
            }
        } catch (IOException closed) {
            // the test closed its end
        }
    }

    private static void synServer(String address, int port, int backlog, long holdMillis, long acceptMillis)
            throws Exception {
        ServerSocketChannel listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress(address, port), backlog);
        System.out.println("listening");
        if (holdMillis < 0) {
            // held by the test until what it waits for has happened, however slowly a loaded host starts it
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            System.out.println("accepting");
        } else {
            Thread.sleep(holdMillis);
        }
        listener.configureBlocking(false);
        List<SocketChannel> accepted = new ArrayList<>();
        int unscaled = 0;
        // Connections whose cookie ACK met a full queue arrive with the client's data
        // retransmissions, in waves; accept promptly so each wave gets what room there is.
        long deadline = System.nanoTime() + acceptMillis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            SocketChannel connection = listener.accept();
            if (connection == null) {
                Thread.sleep(1);
                continue;
            }
            accepted.add(connection);
            TcpInfo info = TcpSockets.tcpInfo(connection);
            boolean scaled = info.options().windowScaling();
            unscaled += scaled ? 0 : 1;
            System.out.println("accepted " + connection.getRemoteAddress() + " wscale=" + scaled + " options="
                    + info.options() + " snd_wnd=" + info.sndWindowBytes().orElse(-1));
        }
        System.out.println("summary accepted=" + accepted.size() + " unscaled=" + unscaled);
        Thread.sleep(Long.MAX_VALUE);
    }

    private static void burst(String address, int port, int count, long holdMillis) throws Exception {
        InetSocketAddress target = new InetSocketAddress(address, port);
        List<SocketChannel> channels = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            SocketChannel channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.connect(target);
            channels.add(channel);
        }
        int connected = 0;
        long deadline = System.nanoTime() + 60_000_000_000L;
        boolean[] done = new boolean[count];
        while (connected < count && System.nanoTime() < deadline) {
            for (int i = 0; i < count; i++) {
                if (!done[i]) {
                    try {
                        if (channels.get(i).finishConnect()) {
                            done[i] = true;
                            connected++;
                            // A client's first request (ApiVersions, as every Kafka client starts) makes the server
                            // re-validate a cookie whose ACK the full accept queue dropped, and names the connection.
                            channels.get(i).write(KafkaHello.apiVersionsRequest("burst-" + i));
                        }
                    } catch (IOException failed) {
                        done[i] = true;
                        System.out.println("failed " + failed);
                    }
                }
            }
            Thread.sleep(2);
        }
        System.out.println("connected " + connected + " of " + count);
        Thread.sleep(holdMillis);
        for (SocketChannel channel : channels) {
            channel.close();
        }
        System.out.println("closed");
    }
}
