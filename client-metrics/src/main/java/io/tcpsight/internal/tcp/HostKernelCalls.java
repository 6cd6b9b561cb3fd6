package io.tcpsight.internal.tcp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The host counters that need a kernel call rather than a file, and the one write on a listening
 * socket the agent may do on an opt-in. Raw bytes come from the native shim; the netlink
 * messages are decoded by {@code io.tcpsight.internal.host.QdiscStats}.
 */
public final class HostKernelCalls {
    /** Enough for a few hundred qdiscs (a multi-queue device has one per queue). */
    static final int QDISC_DUMP_CAPACITY = 256 * 1024;
    /** Enough for about 6,000 driver counters (mlx5 reports a few thousand on a large NIC). */
    static final int ETHTOOL_CAPACITY = 256 * 1024;

    private static final int NAME_BYTES = 32;

    private HostKernelCalls() {}

    /** A buffer for {@link #qdiscDump} and {@link #ethtoolStats}, kept by a caller that reads every round. */
    public static byte[] scratch() {
        return new byte[Math.max(QDISC_DUMP_CAPACITY, ETHTOOL_CAPACITY)];
    }

    /**
     * The netlink messages of an RTM_GETQDISC dump of this network namespace, in native byte order:
     * a view of {@code out} (from {@link #scratch}), valid until its next use.
     */
    public static ByteBuffer qdiscDump(byte[] out) {
        NativeTcp.requireAvailable();
        int filled = NativeTcp.qdiscDump(out);
        if (filled < 0) {
            throw new TcpSocketException("the qdisc dump (rtnetlink) failed: " + Errno.describe(-filled), -filled);
        }
        return ByteBuffer.wrap(out, 0, filled).slice().order(ByteOrder.nativeOrder());
    }

    /**
     * A device's driver statistics by name, as {@code ethtool -S} lists them; empty when the driver
     * reports none. {@code out} is a buffer from {@link #scratch}.
     *
     * @throws TcpSocketException with EOPNOTSUPP when the driver has no statistics, ENODEV when the
     *     device is gone
     */
    public static Map<String, Long> ethtoolStats(String device, byte[] out) {
        NativeTcp.requireAvailable();
        byte[] name = device.getBytes(StandardCharsets.US_ASCII);
        int filled = NativeTcp.ethtoolStats(name, out);
        if (filled < 0) {
            throw new TcpSocketException(
                    "reading the driver statistics of " + device + " failed: " + Errno.describe(-filled), -filled);
        }
        return decodeEthtool(ByteBuffer.wrap(out, 0, filled).order(ByteOrder.nativeOrder()));
    }

    /** count, count names of 32 bytes (NUL-padded), count uint64 values. */
    static Map<String, Long> decodeEthtool(ByteBuffer bytes) {
        Map<String, Long> stats = new LinkedHashMap<>();
        if (bytes.remaining() < 4) {
            return stats;
        }
        int count = bytes.getInt(0);
        if (count < 0 || 4L + (long) count * (NAME_BYTES + 8) > bytes.limit()) {
            return stats;
        }
        int values = 4 + count * NAME_BYTES;
        for (int i = 0; i < count; i++) {
            int start = 4 + i * NAME_BYTES;
            int end = start;
            while (end < start + NAME_BYTES && bytes.get(end) != 0) {
                end++;
            }
            byte[] name = new byte[end - start];
            for (int j = 0; j < name.length; j++) {
                name[j] = bytes.get(start + j);
            }
            stats.putIfAbsent(new String(name, StandardCharsets.US_ASCII).trim(), bytes.getLong(values + i * 8));
        }
        return stats;
    }

    /**
     * Gives a listening socket a new backlog (listen(2) again: Linux takes it without closing the
     * socket). Only for a caller whose user opted in.
     */
    public static void relisten(int fd, int backlog) {
        NativeTcp.requireAvailable();
        int rc = NativeTcp.listen(fd, backlog);
        if (rc < 0) {
            throw new TcpSocketException(
                    "listen(fd " + fd + ", backlog " + backlog + ") failed: " + Errno.describe(-rc), -rc);
        }
    }
}
