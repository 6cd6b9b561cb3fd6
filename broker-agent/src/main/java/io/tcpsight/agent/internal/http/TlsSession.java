package io.tcpsight.agent.internal.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;

/**
 * One connection's TLS over the non-blocking selector, with the JDK's SSLEngine: never blocks, so
 * a client that stalls mid-handshake costs its buffers and its deadline like any slow head. Holds
 * one packet buffer each way (about 16 KB each), the input one only until the head has arrived.
 */
final class TlsSession {
    /** What {@link #read} returns when the decrypted head would outgrow its cap. */
    static final int HEAD_FULL = -2;

    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);
    private final SSLEngine engine;
    /** Bytes from the network not yet decrypted (write mode). */
    private ByteBuffer netIn;
    /** Bytes for the network not yet sent (read mode). */
    private final ByteBuffer netOut;

    private boolean closing;

    TlsSession(SSLEngine engine) {
        this.engine = engine;
        int packet = engine.getSession().getPacketBufferSize();
        this.netIn = ByteBuffer.allocate(packet);
        this.netOut = ByteBuffer.allocate(packet).flip();
    }

    /** While the head arrives: a handshake message is waiting for the socket to take it. */
    boolean wantsWrite() {
        return netOut.hasRemaining();
    }

    /**
     * Reads from the network, answers the handshake, and decrypts into the head that {@code head}
     * gives, which {@code grow} replaces with a larger one when a record does not fit.
     *
     * @return bytes added to the head; -1 at the end of the stream; {@link #HEAD_FULL}
     */
    int read(SocketChannel channel, Supplier<ByteBuffer> head, Supplier<ByteBuffer> grow) throws IOException {
        if (!flush(channel)) {
            return 0;
        }
        if (channel.read(netIn) < 0) {
            return -1;
        }
        int produced = 0;
        netIn.flip();
        try {
            while (true) {
                HandshakeStatus status = engine.getHandshakeStatus();
                if (status == HandshakeStatus.NEED_TASK) {
                    // Inline on the selector thread: a server handshake's tasks are a key agreement and
                    // a signature, about a millisecond, and the connection cap bounds how many run.
                    for (Runnable task = engine.getDelegatedTask(); task != null; task = engine.getDelegatedTask()) {
                        task.run();
                    }
                    continue;
                }
                if (status == HandshakeStatus.NEED_WRAP) {
                    if (wrap(NOTHING) == SSLEngineResult.Status.CLOSED) {
                        return -1;
                    }
                    if (!flush(channel)) {
                        return produced; // the rest when the socket can take it
                    }
                    continue;
                }
                if (!netIn.hasRemaining()) {
                    return produced;
                }
                SSLEngineResult result = engine.unwrap(netIn, head.get());
                produced += result.bytesProduced();
                switch (result.getStatus()) {
                    case BUFFER_UNDERFLOW:
                        return produced; // a record not yet whole
                    case BUFFER_OVERFLOW:
                        if (grow.get() == null) {
                            return HEAD_FULL;
                        }
                        continue;
                    case CLOSED:
                        return -1;
                    default:
                        if (result.bytesConsumed() == 0
                                && result.bytesProduced() == 0
                                && engine.getHandshakeStatus() == status) {
                            return produced;
                        }
                }
            }
        } finally {
            netIn.compact();
        }
    }

    /** The head is in: the input buffer goes (a request body or more requests are never read). */
    void headDone() {
        netIn = ByteBuffer.allocate(0);
    }

    /**
     * Encrypts and sends as much of {@code response} as the socket takes, then a close_notify.
     *
     * @return true when all of it has left
     */
    boolean write(SocketChannel channel, ByteBuffer[] response) throws IOException {
        while (flush(channel)) {
            if (!remaining(response)) {
                if (closing) {
                    return true;
                }
                closing = true;
                engine.closeOutbound();
                wrap(NOTHING);
                continue;
            }
            SSLEngineResult.Status status = wrapAll(response);
            if (status == SSLEngineResult.Status.CLOSED) {
                throw new IOException("TLS closed before the answer was sent");
            }
        }
        return false;
    }

    private SSLEngineResult.Status wrap(ByteBuffer source) throws IOException {
        netOut.compact();
        try {
            return engine.wrap(source, netOut).getStatus();
        } finally {
            netOut.flip();
        }
    }

    private SSLEngineResult.Status wrapAll(ByteBuffer[] sources) throws IOException {
        netOut.compact();
        try {
            return engine.wrap(sources, netOut).getStatus();
        } finally {
            netOut.flip();
        }
    }

    /** True when nothing is left to send. */
    private boolean flush(SocketChannel channel) throws IOException {
        if (netOut.hasRemaining()) {
            channel.write(netOut);
        }
        return !netOut.hasRemaining();
    }

    /** Whether any of the buffers has bytes left. */
    static boolean remaining(ByteBuffer[] buffers) {
        for (ByteBuffer buffer : buffers) {
            if (buffer.hasRemaining()) {
                return true;
            }
        }
        return false;
    }
}
