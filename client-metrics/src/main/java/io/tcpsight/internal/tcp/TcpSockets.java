package io.tcpsight.internal.tcp;

import io.tcpsight.internal.host.HostTcpFacts;
import java.io.IOException;
import java.nio.channels.NetworkChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads kernel TCP state of NIO channels and raw descriptors. Nothing here writes to a socket,
 * except {@link #setCongestionControl}, which exists only for callers whose user opted in.
 */
public final class TcpSockets {
    private TcpSockets() {}

    private static final AtomicBoolean ADVISED = new AtomicBoolean();

    /** Whether the JNI library is usable; every other call here needs it. */
    public static NativeAvailability availability() {
        return NativeTcp.availability();
    }

    /**
     * The line that names --enable-native-access where the JVM warned about the library, to the
     * first component that asks: a JVM with several reporters logs it once. (A refusal is in
     * {@link NativeAvailability#reason()}, which each component already logs.)
     */
    public static Optional<String> nativeAccessAdviceOnce() {
        return availability().advice().filter(line -> ADVISED.compareAndSet(false, true));
    }

    /** The file descriptor behind a SocketChannel or ServerSocketChannel, read without --add-opens. */
    public static int fileDescriptor(NetworkChannel channel) {
        NativeTcp.requireAvailable();
        if (!channel.isOpen()) {
            throw new TcpSocketException(
                    channel.getClass().getSimpleName() + " is closed; it has no socket to read", Errno.EBADF);
        }
        int fd = NativeTcp.fileDescriptor(channel);
        if (fd < 0) {
            throw new TcpSocketException(
                    channel.getClass().getName()
                            + " has no fdVal field; only the JDK's own socket channels are supported",
                    0);
        }
        return fd;
    }

    /**
     * What this socket alone dropped, from SO_MEMINFO: on a listening socket, the SYNs and handshake
     * ACKs its full accept queue turned away, which the namespace's ListenOverflows counts for every
     * listener together. Empty where the kernel does not count them per socket, or fd is gone.
     */
    public static OptionalLong socketDrops(int fd) {
        NativeTcp.requireAvailable();
        long drops = NativeTcp.socketDrops(fd);
        return drops >= 0 ? OptionalLong.of(drops) : OptionalLong.empty();
    }

    /** The inode of the socket on fd: what tells it from a later socket on the same descriptor; empty when fd holds none. */
    public static OptionalLong socketInode(int fd) {
        try {
            long inode = ProcessSocketCensus.socketInode(Paths.get("/proc/self/fd/" + fd));
            return inode > 0 ? OptionalLong.of(inode) : OptionalLong.empty();
        } catch (IOException | RuntimeException unreadable) {
            return OptionalLong.empty();
        }
    }

    public static TcpInfo tcpInfo(NetworkChannel channel) {
        return tcpInfo(fileDescriptor(channel));
    }

    public static TcpInfo tcpInfo(int fd) {
        NativeTcp.requireAvailable();
        byte[] raw = new byte[NativeTcp.INFO_CAPACITY];
        int filled = NativeTcp.tcpInfo(fd, raw);
        if (filled < 0) {
            throw new TcpSocketException(
                    "getsockopt(TCP_INFO) on fd " + fd + " failed: " + Errno.describe(-filled), -filled);
        }
        return TcpInfo.of(raw, filled);
    }

    /** Accept-queue length and effective backlog of a listening channel. */
    public static ListenQueue listenQueue(ServerSocketChannel channel) {
        return tcpInfo(channel).listenQueue();
    }

    public static SocketBufferState bufferState(NetworkChannel channel) {
        return bufferState(fileDescriptor(channel));
    }

    public static SocketBufferState bufferState(int fd) {
        NativeTcp.requireAvailable();
        int[] values = new int[NativeTcp.STATE_COUNT];
        int rc = NativeTcp.socketState(fd, values);
        if (rc < 0) {
            throw new TcpSocketException("reading socket options of fd " + fd + " failed: " + Errno.describe(-rc), -rc);
        }
        return new SocketBufferState(values[0], values[1], values[2], values[3], values[4] != 0, congestionControl(fd));
    }

    public static String congestionControl(int fd) {
        NativeTcp.requireAvailable();
        byte[] name = new byte[NativeTcp.CONGESTION_NAME_CAPACITY];
        int length = NativeTcp.congestion(fd, name);
        if (length < 0) {
            throw new TcpSocketException(
                    "getsockopt(TCP_CONGESTION) on fd " + fd + " failed: " + Errno.describe(-length), -length);
        }
        return new String(name, 0, length, StandardCharsets.US_ASCII);
    }

    /**
     * Sets TCP_CONGESTION on one socket. Only for callers whose user explicitly asked for it.
     *
     * @throws TcpSocketException naming the algorithm and the sysctl that decides, when the
     *     kernel does not have it (ENOENT) or does not allow it for this process (EPERM)
     */
    public static void setCongestionControl(NetworkChannel channel, String algorithm) {
        int fd = fileDescriptor(channel);
        byte[] name = algorithm.getBytes(StandardCharsets.US_ASCII);
        if (name.length == 0 || name.length >= NativeTcp.CONGESTION_NAME_CAPACITY) {
            throw new TcpSocketException(
                    "congestion control name '" + algorithm + "' must have 1 to "
                            + (NativeTcp.CONGESTION_NAME_CAPACITY - 1) + " characters",
                    Errno.EINVAL);
        }
        int rc = NativeTcp.setCongestion(fd, name);
        if (rc == 0) {
            return;
        }
        int errno = -rc;
        HostTcpFacts host = HostTcpFacts.current();
        String message;
        if (errno == Errno.ENOENT) {
            message = "congestion control '" + algorithm + "' is not available in this kernel; available: "
                    + host.availableCongestionControl()
                    + " (net.ipv4.tcp_available_congestion_control; load its module, e.g. tcp_"
                    + algorithm + ")";
        } else if (errno == Errno.EPERM) {
            message = "congestion control '" + algorithm + "' is not allowed for this process: it is not in "
                    + "net.ipv4.tcp_allowed_congestion_control " + host.allowedCongestionControl()
                    + " and the process lacks CAP_NET_ADMIN";
        } else {
            message = "setsockopt(TCP_CONGESTION, " + algorithm + ") on fd " + fd + " failed: " + Errno.describe(errno);
        }
        throw new TcpSocketException(message, errno);
    }
}
