package io.tcpsight.internal.tcp;

import java.util.HashMap;
import java.util.Map;

/** Names for the errno values socket calls return on Linux (the same on x86_64 and aarch64). */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EBADF = 9;
    public static final int EINVAL = 22;
    public static final int ENOTSOCK = 88;
    public static final int ENOPROTOOPT = 92;
    public static final int EOPNOTSUPP = 95;

    private static final Map<Integer, String> NAMES = new HashMap<>();

    static {
        NAMES.put(EPERM, "EPERM");
        NAMES.put(ENOENT, "ENOENT");
        NAMES.put(EBADF, "EBADF");
        NAMES.put(EINVAL, "EINVAL");
        NAMES.put(ENOTSOCK, "ENOTSOCK");
        NAMES.put(ENOPROTOOPT, "ENOPROTOOPT");
        NAMES.put(EOPNOTSUPP, "EOPNOTSUPP");
    }

    private Errno() {}

    /** True for the errors getsockopt(IPPROTO_TCP) gives on a socket that is not TCP. */
    public static boolean isNotTcp(int errno) {
        return errno == EOPNOTSUPP || errno == ENOPROTOOPT;
    }

    /** e.g. "EBADF (Bad file descriptor)", or "not a TCP socket (EOPNOTSUPP)". */
    public static String describe(int errno) {
        if (isNotTcp(errno)) {
            return "not a TCP socket (" + NAMES.get(errno) + ")";
        }
        if (errno == ENOTSOCK) {
            return "not a socket (ENOTSOCK)";
        }
        String name = NAMES.getOrDefault(errno, "errno " + errno);
        String message = NativeTcp.availability().isAvailable() ? NativeTcp.errnoMessage(errno) : null;
        return message == null ? name : name + " (" + message + ")";
    }
}
