package io.tcpsight.internal.tcp;

/**
 * A socket call that failed: a closed channel, a descriptor that is not an open TCP socket, or
 * an option the kernel refused. The message says which socket, what failed and why.
 */
public class TcpSocketException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    public TcpSocketException(String message, int errno) {
        super(message);
        this.errno = errno;
    }

    /** The Linux errno behind the failure, or 0 when it did not come from a system call. */
    public int errno() {
        return errno;
    }
}
