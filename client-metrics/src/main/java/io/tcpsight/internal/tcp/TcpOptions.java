package io.tcpsight.internal.tcp;

/** The negotiated options of a connection, decoded from {@code tcpi_options}. */
public final class TcpOptions {
    static final int TIMESTAMPS = 1;
    static final int SACK = 2;
    static final int WSCALE = 4;
    static final int ECN = 8;
    static final int ECN_SEEN = 16;
    static final int SYN_DATA = 32;
    static final int USEC_TS = 64;
    static final int TFO_CHILD = 128;

    /** Every value there is, so that a sample of each of 100,000 connections holds a shared one. */
    private static final TcpOptions[] ALL = new TcpOptions[256];

    static {
        for (int bits = 0; bits < ALL.length; bits++) {
            ALL[bits] = new TcpOptions(bits);
        }
    }

    private final int bits;

    public TcpOptions(int bits) {
        this.bits = bits & 0xFF;
    }

    /** The shared instance for these bits. */
    public static TcpOptions of(int bits) {
        return ALL[bits & 0xFF];
    }

    public int bits() {
        return bits;
    }

    public boolean timestamps() {
        return (bits & TIMESTAMPS) != 0;
    }

    public boolean sack() {
        return (bits & SACK) != 0;
    }

    /** Without window scaling the advertised window can never exceed 65535 bytes. */
    public boolean windowScaling() {
        return (bits & WSCALE) != 0;
    }

    public boolean ecn() {
        return (bits & ECN) != 0;
    }

    public boolean ecnSeen() {
        return (bits & ECN_SEEN) != 0;
    }

    public boolean synData() {
        return (bits & SYN_DATA) != 0;
    }

    public boolean microsecondTimestamps() {
        return (bits & USEC_TS) != 0;
    }

    public boolean fastOpenChild() {
        return (bits & TFO_CHILD) != 0;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TcpOptions && ((TcpOptions) other).bits == bits;
    }

    @Override
    public int hashCode() {
        return bits;
    }

    /** The same words {@code ss -i} prints: ts, sack, wscale, ecn, ecnseen, ... */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        append(text, timestamps(), "ts");
        append(text, sack(), "sack");
        append(text, windowScaling(), "wscale");
        append(text, ecn(), "ecn");
        append(text, ecnSeen(), "ecnseen");
        append(text, synData(), "syndata");
        append(text, microsecondTimestamps(), "usec_ts");
        append(text, fastOpenChild(), "tfo_child");
        return text.length() == 0 ? "none" : text.toString();
    }

    private static void append(StringBuilder text, boolean set, String word) {
        if (set) {
            if (text.length() > 0) {
                text.append(' ');
            }
            text.append(word);
        }
    }
}
