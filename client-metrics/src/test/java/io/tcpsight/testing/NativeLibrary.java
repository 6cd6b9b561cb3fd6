package io.tcpsight.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tcpsight.internal.tcp.TcpSockets;

/** The tests that read real sockets need the native library: skipped without it, except in CI, where that fails (NoSkipsInCi). */
public final class NativeLibrary {
    private NativeLibrary() {}

    public static void assumeLoaded() {
        assumeTrue(
                TcpSockets.availability().isAvailable(),
                "no native library here: " + TcpSockets.availability().reason());
    }
}
