package io.tcpsight.internal.tcp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every TCP socket this process holds. This is how a JVM without the agent still sees its Kafka
 * connections.
 *
 * <p>With the native library, the sockets come from {@code /proc/self/fd} and each one is asked
 * for its state and addresses: the cost grows with this process's sockets only. Without it,
 * the namespace's TCP tables ({@code /proc/net/tcp}, {@code tcp6}) are read instead; the kernel
 * walks its whole socket hash for those, milliseconds even on an idle host.
 */
public final class ProcessSocketCensus {
    private static final String SOCKET_LINK_PREFIX = "socket:[";

    private ProcessSocketCensus() {}

    public static List<ProcessSocket> take() throws IOException {
        return NativeTcp.availability().isAvailable()
                ? takeFromDescriptors(Paths.get("/proc/self/fd"))
                : take(Paths.get("/proc/self"));
    }

    /**
     * This process's listening TCP sockets only; cheaper than {@link #take()} on a process with
     * many connections, because only listeners are asked for their addresses.
     */
    public static List<ProcessSocket> listening() throws IOException {
        NativeTcp.requireAvailable();
        return takeFromDescriptors(Paths.get("/proc/self/fd"), TcpState.LISTEN);
    }

    static List<ProcessSocket> takeFromDescriptors(Path fdFolder) throws IOException {
        return takeFromDescriptors(fdFolder, null);
    }

    /** This process's sockets from its descriptors, asking each socket directly (native); only in state when not null. */
    static List<ProcessSocket> takeFromDescriptors(Path fdFolder, TcpState only) throws IOException {
        List<ProcessSocket> sockets = new ArrayList<>();
        byte[] info = new byte[NativeTcp.INFO_CAPACITY];
        byte[] addresses = new byte[NativeTcp.ADDRESSES_BYTES];
        ByteBuffer header = ByteBuffer.wrap(addresses).order(ByteOrder.nativeOrder());
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(fdFolder)) {
            for (Path fdLink : fds) {
                long inode = socketInode(fdLink);
                if (inode < 0) {
                    continue;
                }
                int fd = Integer.parseInt(fdLink.getFileName().toString());
                int filled = NativeTcp.tcpInfo(fd, info);
                if (filled < TcpInfo.MINIMUM_LENGTH
                        || (only != null && TcpState.of(info[0] & 0xFF) != only)
                        || NativeTcp.socketAddresses(fd, addresses) != 0) {
                    continue; // not TCP, not wanted, or closed meanwhile
                }
                int length = header.getInt(0) == 4 ? 4 : 16;
                InetSocketAddress local = new InetSocketAddress(
                        InetAddress.getByAddress(Arrays.copyOfRange(addresses, 16, 16 + length)), header.getInt(4));
                InetSocketAddress remote = new InetSocketAddress(
                        InetAddress.getByAddress(Arrays.copyOfRange(addresses, 32, 32 + length)), header.getInt(8));
                sockets.add(new ProcessSocket(fd, inode, local, remote, TcpState.of(info[0] & 0xFF)));
            }
        }
        sockets.sort(Comparator.comparingInt(ProcessSocket::fd));
        return sockets;
    }

    /** The inode of the socket a /proc/PID/fd entry points at, or -1 when it is not a socket (or gone). */
    static long socketInode(Path fdLink) throws IOException {
        String target;
        try {
            target = Files.readSymbolicLink(fdLink).toString();
        } catch (NoSuchFileException closedMeanwhile) {
            return -1;
        }
        if (!target.startsWith(SOCKET_LINK_PREFIX) || !target.endsWith("]")) {
            return -1;
        }
        return Long.parseLong(target.substring(SOCKET_LINK_PREFIX.length(), target.length() - 1));
    }

    /** Takes the census of the process whose /proc folder is procPid (e.g. /proc/self) from the TCP tables. */
    public static List<ProcessSocket> take(Path procPid) throws IOException {
        Map<Long, ProcNetTcp.Entry> tcp = new HashMap<>();
        for (String table : new String[] {"net/tcp", "net/tcp6"}) {
            Path file = procPid.resolve(table);
            if (Files.exists(file)) {
                tcp.putAll(ProcNetTcp.parse(
                        new String(Files.readAllBytes(file), StandardCharsets.US_ASCII), file.toString()));
            }
        }
        List<ProcessSocket> sockets = new ArrayList<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(procPid.resolve("fd"))) {
            for (Path fdLink : fds) {
                long inode = socketInode(fdLink);
                ProcNetTcp.Entry entry = inode < 0 ? null : tcp.get(inode);
                if (entry != null) {
                    sockets.add(new ProcessSocket(
                            Integer.parseInt(fdLink.getFileName().toString()),
                            inode,
                            entry.local,
                            entry.remote,
                            entry.state));
                }
            }
        }
        sockets.sort(Comparator.comparingInt(ProcessSocket::fd));
        return sockets;
    }
}
