package io.tcpsight.internal.tcp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;

/**
 * The layout of Linux {@code struct tcp_info}, defined here rather than taken from the build
 * machine's headers, because the running kernel may be older or newer than those headers.
 * A field is present in a snapshot only when the length the kernel returned covers it.
 *
 * <p>The trailing 32-bit word after {@code tcpi_received_ce_bytes} changed its layout between
 * kernel releases (two u16 fields, later bit fields), so it is not decoded.
 */
public enum TcpInfoField {
    STATE(0, 1, "2.6", Unit.ENUMERATION),
    CA_STATE(1, 1, "2.6", Unit.ENUMERATION),
    RETRANSMITS(2, 1, "2.6", Unit.COUNT),
    PROBES(3, 1, "2.6", Unit.COUNT),
    BACKOFF(4, 1, "2.6", Unit.COUNT),
    OPTIONS(5, 1, "2.6", Unit.FLAGS),
    SND_WSCALE(6, 1, 0, 0xF, "2.6", Unit.SHIFT),
    RCV_WSCALE(6, 1, 4, 0xF, "2.6", Unit.SHIFT),
    DELIVERY_RATE_APP_LIMITED(7, 1, 0, 0x1, "4.9", Unit.FLAGS),
    FASTOPEN_CLIENT_FAIL(7, 1, 1, 0x3, "5.5", Unit.ENUMERATION),
    RTO(8, 4, "2.6", Unit.MICROSECONDS),
    ATO(12, 4, "2.6", Unit.MICROSECONDS),
    SND_MSS(16, 4, "2.6", Unit.BYTES),
    RCV_MSS(20, 4, "2.6", Unit.BYTES),
    UNACKED(24, 4, "2.6", Unit.COUNT),
    SACKED(28, 4, "2.6", Unit.COUNT),
    LOST(32, 4, "2.6", Unit.COUNT),
    RETRANS(36, 4, "2.6", Unit.COUNT),
    FACKETS(40, 4, "2.6", Unit.COUNT),
    LAST_DATA_SENT(44, 4, "2.6", Unit.MILLISECONDS),
    LAST_ACK_SENT(48, 4, "2.6", Unit.MILLISECONDS),
    LAST_DATA_RECV(52, 4, "2.6", Unit.MILLISECONDS),
    LAST_ACK_RECV(56, 4, "2.6", Unit.MILLISECONDS),
    PMTU(60, 4, "2.6", Unit.BYTES),
    RCV_SSTHRESH(64, 4, "2.6", Unit.BYTES),
    RTT(68, 4, "2.6", Unit.MICROSECONDS),
    RTTVAR(72, 4, "2.6", Unit.MICROSECONDS),
    SND_SSTHRESH(76, 4, "2.6", Unit.SEGMENTS),
    SND_CWND(80, 4, "2.6", Unit.SEGMENTS),
    ADVMSS(84, 4, "2.6", Unit.BYTES),
    REORDERING(88, 4, "2.6", Unit.COUNT),
    RCV_RTT(92, 4, "2.6", Unit.MICROSECONDS),
    RCV_SPACE(96, 4, "2.6", Unit.BYTES),
    TOTAL_RETRANS(100, 4, "2.6", Unit.COUNT),
    PACING_RATE(104, 8, "3.15", Unit.BYTES_PER_SECOND),
    MAX_PACING_RATE(112, 8, "3.15", Unit.BYTES_PER_SECOND),
    BYTES_ACKED(120, 8, "4.1", Unit.BYTES),
    BYTES_RECEIVED(128, 8, "4.1", Unit.BYTES),
    SEGS_OUT(136, 4, "4.2", Unit.COUNT),
    SEGS_IN(140, 4, "4.2", Unit.COUNT),
    NOTSENT_BYTES(144, 4, "4.6", Unit.BYTES),
    MIN_RTT(148, 4, "4.6", Unit.MICROSECONDS),
    DATA_SEGS_IN(152, 4, "4.6", Unit.COUNT),
    DATA_SEGS_OUT(156, 4, "4.6", Unit.COUNT),
    DELIVERY_RATE(160, 8, "4.9", Unit.BYTES_PER_SECOND),
    BUSY_TIME(168, 8, "4.10", Unit.MICROSECONDS),
    RWND_LIMITED(176, 8, "4.10", Unit.MICROSECONDS),
    SNDBUF_LIMITED(184, 8, "4.10", Unit.MICROSECONDS),
    DELIVERED(192, 4, "4.18", Unit.COUNT),
    DELIVERED_CE(196, 4, "4.18", Unit.COUNT),
    BYTES_SENT(200, 8, "4.19", Unit.BYTES),
    BYTES_RETRANS(208, 8, "4.19", Unit.BYTES),
    DSACK_DUPS(216, 4, "4.19", Unit.COUNT),
    REORD_SEEN(220, 4, "4.19", Unit.COUNT),
    RCV_OOOPACK(224, 4, "5.4", Unit.COUNT),
    SND_WND(228, 4, "5.4", Unit.BYTES),
    RCV_WND(232, 4, "6.2", Unit.BYTES),
    REHASH(236, 4, "6.2", Unit.COUNT),
    TOTAL_RTO(240, 2, "6.7", Unit.COUNT),
    TOTAL_RTO_RECOVERIES(242, 2, "6.7", Unit.COUNT),
    TOTAL_RTO_TIME(244, 4, "6.7", Unit.MILLISECONDS),
    RECEIVED_CE(248, 4, "6.18", Unit.COUNT),
    DELIVERED_E1_BYTES(252, 4, "6.18", Unit.BYTES),
    DELIVERED_E0_BYTES(256, 4, "6.18", Unit.BYTES),
    DELIVERED_CE_BYTES(260, 4, "6.18", Unit.BYTES),
    RECEIVED_E1_BYTES(264, 4, "6.18", Unit.BYTES),
    RECEIVED_E0_BYTES(268, 4, "6.18", Unit.BYTES),
    RECEIVED_CE_BYTES(272, 4, "6.18", Unit.BYTES);

    /** What a field's value counts, so callers can convert without guessing. */
    public enum Unit {
        ENUMERATION,
        FLAGS,
        SHIFT,
        COUNT,
        SEGMENTS,
        BYTES,
        BYTES_PER_SECOND,
        MICROSECONDS,
        MILLISECONDS
    }

    /** Bytes of {@code struct tcp_info} that this layout decodes. */
    public static final int DECODED_LENGTH = RECEIVED_CE_BYTES.end();

    private final int offset;
    private final int size;
    private final int shift;
    private final long mask;
    private final String sinceKernel;
    private final Unit unit;

    TcpInfoField(int offset, int size, String sinceKernel, Unit unit) {
        this(offset, size, 0, -1L, sinceKernel, unit);
    }

    TcpInfoField(int offset, int size, int shift, long mask, String sinceKernel, Unit unit) {
        this.offset = offset;
        this.size = size;
        this.shift = shift;
        this.mask = mask;
        this.sinceKernel = sinceKernel;
        this.unit = unit;
    }

    /** Byte offset in {@code struct tcp_info}. */
    public int offset() {
        return offset;
    }

    /** One past the last byte this field needs; the kernel must have filled at least this many. */
    public int end() {
        return offset + size;
    }

    /** The kernel's own name, e.g. {@code tcpi_snd_wnd}. */
    public String kernelName() {
        return "tcpi_" + name().toLowerCase(Locale.ROOT);
    }

    /** The kernel release that added the field (approximate for back-ported fields). */
    public String sinceKernel() {
        return sinceKernel;
    }

    public Unit unit() {
        return unit;
    }

    /**
     * Reads this field from a native-order buffer holding {@code struct tcp_info} at base.
     * Unsigned 64-bit values above {@link Long#MAX_VALUE} (the kernel's "unlimited") saturate.
     */
    long read(ByteBuffer buffer, int base) {
        int at = base + offset;
        long raw;
        switch (size) {
            case 1:
                raw = buffer.get(at) & 0xFFL;
                break;
            case 2:
                raw = buffer.getShort(at) & 0xFFFFL;
                break;
            case 4:
                raw = buffer.getInt(at) & 0xFFFF_FFFFL;
                break;
            default:
                raw = buffer.getLong(at);
                return raw < 0 ? Long.MAX_VALUE : raw;
        }
        return (raw >>> shift) & mask;
    }

    /** Kernel structs are in the machine's byte order. */
    static ByteBuffer nativeOrder(ByteBuffer buffer) {
        return buffer.order(ByteOrder.nativeOrder());
    }
}
