package io.tcpsight.report;

import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.host.NetstatCounters;
import io.tcpsight.internal.tcp.ProcessSocket;
import io.tcpsight.internal.tcp.ProcessSocketCensus;
import io.tcpsight.internal.tcp.SocketBufferState;
import io.tcpsight.internal.tcp.TcpInfo;
import io.tcpsight.internal.tcp.TcpSocketException;
import io.tcpsight.internal.tcp.TcpSockets;
import io.tcpsight.internal.tcp.TcpState;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Prints this host's TCP facts and this JVM's TCP sockets with their TCP_INFO.
 *
 * <p>Usage: {@code java -jar tcpsight-client-metrics-<version>.jar [host:port ...]}. Each argument is
 * connected to first; with none, a loopback listener and one connection are opened, so there
 * is always something to show.
 */
public final class TcpFactsReport {
    private static final String[] COUNTERS = {
        NetstatCounters.SYNCOOKIES_SENT, NetstatCounters.SYNCOOKIES_RECV, NetstatCounters.SYNCOOKIES_FAILED,
        NetstatCounters.LISTEN_OVERFLOWS, NetstatCounters.LISTEN_DROPS, NetstatCounters.REQ_QUEUE_FULL_DO_COOKIES,
        NetstatCounters.REQ_QUEUE_FULL_DROP, NetstatCounters.SYN_RETRANS
    };

    private TcpFactsReport() {}

    public static void main(String[] args) throws IOException {
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            if (args.length == 0) {
                openLoopbackPair(opened);
            }
            for (String target : args) {
                opened.add(connect(target));
            }
            print(System.out);
        } finally {
            for (AutoCloseable closeable : opened) {
                try {
                    closeable.close();
                } catch (Exception ignored) {
                    // the report is done; nothing depends on a clean close
                }
            }
        }
    }

    static void print(PrintStream out) throws IOException {
        HostTcpFacts host = HostTcpFacts.current();
        out.println("== host");
        out.println("kernel                                  "
                + host.kernel().map(Object::toString).orElse("unknown"));
        row(out, "net.core.rmem_max", host.rmemMax());
        row(out, "net.core.wmem_max", host.wmemMax());
        row(out, "net.core.somaxconn", host.somaxconn());
        out.printf(
                "%-40s%s%n",
                "net.ipv4.tcp_rmem", host.tcpRmem().map(Object::toString).orElse("unknown"));
        out.printf(
                "%-40s%s%n",
                "net.ipv4.tcp_wmem", host.tcpWmem().map(Object::toString).orElse("unknown"));
        row(out, "net.ipv4.tcp_window_scaling", host.windowScaling());
        row(out, "net.ipv4.tcp_timestamps", host.timestamps());
        row(out, "net.ipv4.tcp_syncookies", host.syncookies());
        out.printf(
                "%-40s%s%n",
                "net.ipv4.tcp_congestion_control", host.congestionControl().orElse("unknown"));
        out.printf(
                "%-40s%s%n",
                "net.ipv4.tcp_allowed_congestion_control", String.join(" ", host.allowedCongestionControl()));
        out.printf(
                "%-40s%s%n",
                "net.ipv4.tcp_available_congestion_control", String.join(" ", host.availableCongestionControl()));
        for (String problem : host.problems()) {
            out.println("  (" + problem + ")");
        }

        out.println("== TcpExt counters (this network namespace)");
        try {
            NetstatCounters counters = NetstatCounters.read();
            for (String name : COUNTERS) {
                row(out, name, counters.tcpExt(name));
            }
        } catch (IOException | IllegalArgumentException unreadable) {
            out.println("  unavailable: " + unreadable.getMessage());
        }

        out.println("== native TCP_INFO: " + TcpSockets.availability());
        out.println("== this JVM's TCP sockets");
        for (ProcessSocket socket : ProcessSocketCensus.take()) {
            out.println(socket);
            if (!TcpSockets.availability().isAvailable()) {
                continue;
            }
            try {
                TcpInfo info = TcpSockets.tcpInfo(socket.fd());
                if (info.state() == TcpState.LISTEN) {
                    out.println("    accept queue " + info.listenQueue() + " (length/effective backlog)");
                    continue;
                }
                SocketBufferState buffers = TcpSockets.bufferState(socket.fd());
                out.printf(
                        "    rtt %.3f ms  min_rtt %s  cwnd %d  mss %d  options %s  wscale %d,%d%n",
                        info.rttMicros() / 1000.0,
                        info.minRttMicros().isPresent()
                                ? String.format("%.3f ms", info.minRttMicros().getAsLong() / 1000.0)
                                : "n/a",
                        info.sndCwnd(),
                        info.sndMss(),
                        info.options(),
                        info.sndWindowScale(),
                        info.rcvWindowScale());
                out.printf(
                        "    snd_wnd %s  rcv_wnd %s  rcv_space %d  retrans %d  (kernel filled %d bytes)%n",
                        text(info.sndWindowBytes()),
                        text(info.rcvWindowBytes()),
                        info.rcvSpaceBytes(),
                        info.totalRetrans(),
                        info.filledBytes());
                out.println("    " + buffers);
            } catch (TcpSocketException closedMeanwhile) {
                out.println("    " + closedMeanwhile.getMessage());
            }
        }
    }

    private static void row(PrintStream out, String name, OptionalLong value) {
        out.printf("%-40s%s%n", name, text(value));
    }

    private static String text(OptionalLong value) {
        return value.isPresent() ? Long.toString(value.getAsLong()) : "n/a";
    }

    private static void openLoopbackPair(List<AutoCloseable> opened) throws IOException {
        ServerSocketChannel listener = ServerSocketChannel.open();
        opened.add(listener);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        SocketChannel client = SocketChannel.open(listener.getLocalAddress());
        opened.add(client);
        SocketChannel accepted = listener.accept();
        opened.add(accepted);
        client.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        accepted.read(ByteBuffer.allocate(3));
    }

    private static SocketChannel connect(String target) throws IOException {
        int colon = target.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("'" + target + "' is not host:port");
        }
        return SocketChannel.open(
                new InetSocketAddress(target.substring(0, colon), Integer.parseInt(target.substring(colon + 1))));
    }
}
