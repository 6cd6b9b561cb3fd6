package io.tcpsight.internal.tcp;

/** Linux TCP states, numbered as in {@code include/net/tcp_states.h} and {@code /proc/net/tcp}. */
public enum TcpState {
    UNKNOWN(0),
    ESTABLISHED(1),
    SYN_SENT(2),
    SYN_RECV(3),
    FIN_WAIT1(4),
    FIN_WAIT2(5),
    TIME_WAIT(6),
    CLOSE(7),
    CLOSE_WAIT(8),
    LAST_ACK(9),
    LISTEN(10),
    CLOSING(11),
    NEW_SYN_RECV(12),
    BOUND_INACTIVE(13);

    private static final TcpState[] BY_CODE = new TcpState[14];

    static {
        for (TcpState state : values()) {
            BY_CODE[state.code] = state;
        }
    }

    private final int code;

    TcpState(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The state for a kernel code; codes this enum does not know map to {@link #UNKNOWN}. */
    public static TcpState of(int code) {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }
}
