package io.tcpsight.internal.host;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The qdiscs of this network namespace and their counters, decoded from an RTM_GETQDISC dump
 * (what {@code tc -s qdisc} shows): per qdisc its device, handle, parent, kind, packets, drops,
 * overlimits and requeues. A malformed message ends the decoding with what came before it.
 */
public final class QdiscStats {
    static final int RTM_NEWQDISC = 36;
    static final int TCA_KIND = 1;
    static final int TCA_STATS = 3;
    static final int TCA_STATS2 = 7;
    static final int TCA_STATS_BASIC = 1;
    static final int TCA_STATS_QUEUE = 3;
    static final int TCA_STATS_PKT64 = 8;
    /** tcm_parent of a device's root qdisc. */
    public static final int ROOT = 0xFFFFFFFF;

    private static final int NLMSG_HEADER = 16;
    private static final int TCMSG = 20;

    private QdiscStats() {}

    /** One qdisc's counters since it was created. */
    public static final class Qdisc {
        private final int deviceIndex;
        private final int handle;
        private final int parent;
        private final String kind;
        private final long packets;
        private final long drops;
        private final long overlimits;
        private final long requeues;

        public Qdisc(
                int deviceIndex,
                int handle,
                int parent,
                String kind,
                long packets,
                long drops,
                long overlimits,
                long requeues) {
            this.deviceIndex = deviceIndex;
            this.handle = handle;
            this.parent = parent;
            this.kind = kind;
            this.packets = packets;
            this.drops = drops;
            this.overlimits = overlimits;
            this.requeues = requeues;
        }

        public int deviceIndex() {
            return deviceIndex;
        }

        public int handle() {
            return handle;
        }

        public int parent() {
            return parent;
        }

        /** "tbf", "fq_codel", "mq", "noqueue", ... */
        public String kind() {
            return kind;
        }

        public long packets() {
            return packets;
        }

        public long drops() {
            return drops;
        }

        public long overlimits() {
            return overlimits;
        }

        public long requeues() {
            return requeues;
        }

        public boolean isRoot() {
            return parent == ROOT;
        }

        /** "1:0" style, as tc prints it. */
        public static String handleText(int handle) {
            return Integer.toHexString(handle >>> 16) + ":" + Integer.toHexString(handle & 0xFFFF);
        }

        @Override
        public String toString() {
            return kind + " " + handleText(handle) + " dev#" + deviceIndex + " parent "
                    + (isRoot() ? "root" : handleText(parent)) + " packets " + packets + " drops " + drops
                    + " overlimits " + overlimits + " requeues " + requeues;
        }
    }

    /** Decodes a dump in the byte order it was read in. */
    public static List<Qdisc> decode(ByteBuffer dump) {
        List<Qdisc> qdiscs = new ArrayList<>();
        int offset = dump.position();
        int end = dump.limit();
        while (offset + NLMSG_HEADER <= end) {
            int length = dump.getInt(offset);
            int type = Short.toUnsignedInt(dump.getShort(offset + 4));
            if (length < NLMSG_HEADER || offset + length > end) {
                break;
            }
            if (type == RTM_NEWQDISC && length >= NLMSG_HEADER + TCMSG) {
                qdiscs.add(qdisc(dump, offset + NLMSG_HEADER, offset + length));
            }
            offset += align(length);
        }
        return qdiscs;
    }

    private static Qdisc qdisc(ByteBuffer dump, int start, int end) {
        int deviceIndex = dump.getInt(start + 4);
        int handle = dump.getInt(start + 8);
        int parent = dump.getInt(start + 12);
        String[] kind = {""};
        long[] counters = new long[4]; // packets, drops, overlimits, requeues
        boolean[] fromStats2 = {false};
        forEachAttribute(dump, start + TCMSG, end, (type, data, dataLength) -> {
            if (type == TCA_KIND) {
                kind[0] = string(dump, data, dataLength);
            } else if (type == TCA_STATS2) {
                fromStats2[0] = stats2(dump, data, data + dataLength, counters);
            } else if (type == TCA_STATS && !fromStats2[0] && dataLength >= 20) {
                // struct tc_stats: bytes u64, packets u32, drops u32, overlimits u32, ...
                counters[0] = Integer.toUnsignedLong(dump.getInt(data + 8));
                counters[1] = Integer.toUnsignedLong(dump.getInt(data + 12));
                counters[2] = Integer.toUnsignedLong(dump.getInt(data + 16));
            }
        });
        return new Qdisc(deviceIndex, handle, parent, kind[0], counters[0], counters[1], counters[2], counters[3]);
    }

    /** TCA_STATS2's nested basic and queue counters; true when the queue counters were there. */
    private static boolean stats2(ByteBuffer dump, int start, int end, long[] counters) {
        boolean[] queue = {false};
        boolean[] packets64 = {false};
        forEachAttribute(dump, start, end, (type, data, dataLength) -> {
            if (type == TCA_STATS_BASIC && dataLength >= 12 && !packets64[0]) {
                counters[0] = Integer.toUnsignedLong(dump.getInt(data + 8)); // bytes u64, packets u32
            } else if (type == TCA_STATS_PKT64 && dataLength >= 8) {
                counters[0] = dump.getLong(data);
                packets64[0] = true;
            } else if (type == TCA_STATS_QUEUE && dataLength >= 20) {
                // struct gnet_stats_queue: qlen, backlog, drops, requeues, overlimits
                counters[1] = Integer.toUnsignedLong(dump.getInt(data + 8));
                counters[3] = Integer.toUnsignedLong(dump.getInt(data + 12));
                counters[2] = Integer.toUnsignedLong(dump.getInt(data + 16));
                queue[0] = true;
            }
        });
        return queue[0];
    }

    /** What a walk over netlink attributes does with each one: its type (flags cleared), where its data starts, how long. */
    private interface AttributeVisitor {
        void visit(int type, int data, int dataLength);
    }

    /** Every well-formed attribute between start and end, in order; a malformed one ends the walk. */
    private static void forEachAttribute(ByteBuffer dump, int start, int end, AttributeVisitor visitor) {
        int attribute = start;
        while (attribute + 4 <= end) {
            int length = Short.toUnsignedInt(dump.getShort(attribute));
            int type = Short.toUnsignedInt(dump.getShort(attribute + 2)) & 0x3FFF;
            if (length < 4 || attribute + length > end) {
                break;
            }
            visitor.visit(type, attribute + 4, length - 4);
            attribute += align(length);
        }
    }

    private static String string(ByteBuffer dump, int start, int length) {
        int end = start;
        while (end < start + length && dump.get(end) != 0) {
            end++;
        }
        byte[] bytes = new byte[end - start];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = dump.get(start + i);
        }
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    private static int align(int length) {
        return (length + 3) & ~3;
    }
}
