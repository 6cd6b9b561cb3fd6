package io.tcpsight.internal.tcp;

import io.tcpsight.internal.host.MalformedProcFileException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;

/**
 * Parses {@code /proc/net/tcp} and {@code /proc/net/tcp6}: one socket per line, keyed by inode.
 * Addresses are printed as 32-bit words in the machine's byte order; ports in plain hex.
 */
public final class ProcNetTcp {
    private static final int LOCAL = 1;
    private static final int REMOTE = 2;
    private static final int STATE = 3;
    private static final int INODE = 9;

    /** A socket line without its descriptor, which only /proc/self/fd knows. */
    public static final class Entry {
        final InetSocketAddress local;
        final InetSocketAddress remote;
        final TcpState state;
        final long inode;

        Entry(InetSocketAddress local, InetSocketAddress remote, TcpState state, long inode) {
            this.local = local;
            this.remote = remote;
            this.state = state;
            this.inode = inode;
        }
    }

    private ProcNetTcp() {}

    /**
     * @throws MalformedProcFileException naming the line and what is wrong with it
     */
    public static Map<Long, Entry> parse(String text, String source) {
        Map<Long, Entry> entries = new HashMap<>();
        String[] lines = text.split("\n");
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i].trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] columns = line.split("\\s+");
            if (columns.length <= INODE) {
                throw new MalformedProcFileException(
                        source, i + 1, "has " + columns.length + " columns, expected at least " + (INODE + 1));
            }
            try {
                long inode = Long.parseLong(columns[INODE]);
                if (inode == 0) {
                    continue; // orphaned and TIME_WAIT sockets belong to no process
                }
                Entry entry = new Entry(
                        address(columns[LOCAL]),
                        address(columns[REMOTE]),
                        TcpState.of(Integer.parseInt(columns[STATE], 16)),
                        inode);
                entries.put(inode, entry);
            } catch (IllegalArgumentException | UnknownHostException malformed) {
                throw new MalformedProcFileException(
                        source, i + 1, "cannot be read as a socket: " + malformed.getMessage());
            }
        }
        return entries;
    }

    static InetSocketAddress address(String column) throws UnknownHostException {
        int colon = column.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("address '" + column + "' has no ':port'");
        }
        String hex = column.substring(0, colon);
        if (hex.length() != 8 && hex.length() != 32) {
            throw new IllegalArgumentException("address '" + hex + "' is neither 8 (IPv4) nor 32 (IPv6) hex digits");
        }
        byte[] bytes = new byte[hex.length() / 2];
        boolean littleEndian = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
        for (int word = 0; word < bytes.length / 4; word++) {
            long value = Long.parseLong(hex.substring(word * 8, word * 8 + 8), 16);
            for (int b = 0; b < 4; b++) {
                int shift = littleEndian ? 8 * b : 8 * (3 - b);
                bytes[word * 4 + b] = (byte) (value >>> shift);
            }
        }
        int port = Integer.parseInt(column.substring(colon + 1), 16);
        return new InetSocketAddress(InetAddress.getByAddress(bytes), port);
    }
}
