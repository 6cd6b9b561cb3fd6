package io.tcpsight.internal.tcp;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * An immutable snapshot of one socket's {@code struct tcp_info}.
 *
 * <p>Fields the running kernel did not fill (beyond the length it returned) are absent, never
 * zero: {@link #get(TcpInfoField)} returns an empty optional for them.
 */
public final class TcpInfo {
    /** Every kernel tcpsight supports fills at least this much (up to tcpi_total_retrans). */
    static final int MINIMUM_LENGTH = TcpInfoField.TOTAL_RETRANS.end();

    private final ByteBuffer bytes;
    private final int filled;

    private TcpInfo(byte[] copy, int filled) {
        this.bytes = TcpInfoField.nativeOrder(ByteBuffer.wrap(copy).asReadOnlyBuffer());
        this.filled = filled;
    }

    /**
     * A snapshot of the first {@code filled} bytes of {@code raw}.
     *
     * @throws IllegalArgumentException if fewer bytes than any supported kernel fills are given
     */
    public static TcpInfo of(byte[] raw, int filled) {
        if (filled < MINIMUM_LENGTH || filled > raw.length) {
            throw new IllegalArgumentException(
                    "tcp_info of " + filled + " bytes is not a valid snapshot: need at least " + MINIMUM_LENGTH
                            + " and at most the " + raw.length + " bytes given");
        }
        return new TcpInfo(Arrays.copyOf(raw, Math.max(filled, TcpInfoField.DECODED_LENGTH)), filled);
    }

    static TcpInfo copyOf(ByteBuffer source, int base, int filled) {
        byte[] copy = new byte[Math.max(filled, TcpInfoField.DECODED_LENGTH)];
        for (int i = 0; i < filled; i++) {
            copy[i] = source.get(base + i);
        }
        return of(copy, filled);
    }

    /** How many bytes of tcp_info the running kernel filled. */
    public int filledBytes() {
        return filled;
    }

    public boolean has(TcpInfoField field) {
        return field.end() <= filled;
    }

    public OptionalLong get(TcpInfoField field) {
        return has(field) ? OptionalLong.of(field.read(bytes, 0)) : OptionalLong.empty();
    }

    /** The value of a field every supported kernel fills; see {@link #MINIMUM_LENGTH}. */
    private long base(TcpInfoField field) {
        return field.read(bytes, 0);
    }

    public TcpState state() {
        return TcpState.of((int) base(TcpInfoField.STATE));
    }

    public TcpOptions options() {
        return TcpOptions.of((int) base(TcpInfoField.OPTIONS));
    }

    /** The shift applied to the peer's advertised window (0 when scaling was not negotiated). */
    public int sndWindowScale() {
        return (int) base(TcpInfoField.SND_WSCALE);
    }

    /** The shift applied to our advertised window (0 when scaling was not negotiated). */
    public int rcvWindowScale() {
        return (int) base(TcpInfoField.RCV_WSCALE);
    }

    public long rttMicros() {
        return base(TcpInfoField.RTT);
    }

    public long rttVarMicros() {
        return base(TcpInfoField.RTTVAR);
    }

    /** The windowed minimum RTT; empty before the first RTT sample (the kernel reports ~0U then). */
    public OptionalLong minRttMicros() {
        OptionalLong micros = get(TcpInfoField.MIN_RTT);
        return micros.isPresent() && micros.getAsLong() != NO_RTT_SAMPLE ? micros : OptionalLong.empty();
    }

    /** What tcpi_min_rtt holds before the connection has measured a round trip. */
    static final long NO_RTT_SAMPLE = 0xFFFF_FFFFL;

    public long sndCwnd() {
        return base(TcpInfoField.SND_CWND);
    }

    public long sndMss() {
        return base(TcpInfoField.SND_MSS);
    }

    public long rcvSpaceBytes() {
        return base(TcpInfoField.RCV_SPACE);
    }

    public long totalRetrans() {
        return base(TcpInfoField.TOTAL_RETRANS);
    }

    /** The peer's advertised receive window after scaling (kernel 5.4+). */
    public OptionalLong sndWindowBytes() {
        return get(TcpInfoField.SND_WND);
    }

    /** Our advertised receive window after scaling (kernel 6.2+). */
    public OptionalLong rcvWindowBytes() {
        return get(TcpInfoField.RCV_WND);
    }

    public OptionalLong deliveryRateBytesPerSecond() {
        return get(TcpInfoField.DELIVERY_RATE);
    }

    public OptionalLong busyTimeMicros() {
        return get(TcpInfoField.BUSY_TIME);
    }

    public OptionalLong rwndLimitedMicros() {
        return get(TcpInfoField.RWND_LIMITED);
    }

    public OptionalLong sndbufLimitedMicros() {
        return get(TcpInfoField.SNDBUF_LIMITED);
    }

    public OptionalLong bytesAcked() {
        return get(TcpInfoField.BYTES_ACKED);
    }

    public OptionalLong bytesReceived() {
        return get(TcpInfoField.BYTES_RECEIVED);
    }

    public OptionalLong bytesRetrans() {
        return get(TcpInfoField.BYTES_RETRANS);
    }

    /** For a LISTEN socket: the current accept-queue length and the effective backlog. */
    public ListenQueue listenQueue() {
        if (state() != TcpState.LISTEN) {
            throw new IllegalStateException("listen queue requested for a socket in state " + state());
        }
        return new ListenQueue(base(TcpInfoField.UNACKED), base(TcpInfoField.SACKED));
    }

    /** Every field the kernel filled, by kernel name, in struct order. */
    public Map<String, Long> toMap() {
        Map<String, Long> values = new LinkedHashMap<>();
        for (TcpInfoField field : TcpInfoField.values()) {
            if (has(field)) {
                values.put(field.kernelName(), field.read(bytes, 0));
            }
        }
        return values;
    }

    @Override
    public String toString() {
        return "TcpInfo{state=" + state() + ", rtt=" + rttMicros() + "us, options=" + options()
                + ", wscale=" + sndWindowScale() + "," + rcvWindowScale() + ", cwnd=" + sndCwnd()
                + ", snd_wnd=" + sndWindowBytes() + ", rcv_wnd=" + rcvWindowBytes() + ", filled=" + filled + "}";
    }
}
