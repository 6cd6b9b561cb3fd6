package io.tcpsight.internal.tcp;

/** The JNI library could not be used on this platform; the message carries the reason. */
public final class NativeUnavailableException extends TcpSocketException {
    private static final long serialVersionUID = 1L;

    public NativeUnavailableException(String reason) {
        super("tcpsight native TCP access is unavailable: " + reason, 0);
    }
}
