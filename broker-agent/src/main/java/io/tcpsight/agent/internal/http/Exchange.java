package io.tcpsight.agent.internal.http;

import java.nio.ByteBuffer;

/** One connection's state: the head as it arrives, then the answer as it leaves. */
final class Exchange {
    static final int MAX_HEAD_BYTES = 8 * 1024;

    final long started;
    /** Null on plain HTTP. */
    final TlsSession tls;
    /** Small at first; grown once to MAX_HEAD_BYTES for a head that needs it. */
    ByteBuffer head = ByteBuffer.allocate(1024);
    /** Where the search for the head's end goes on. */
    int scanned;
    /** The head is in (or refused): the connection now waits for its answer or sends it. */
    boolean headDone;
    /** Head and body; the body may be shared with other exchanges (a read-only view each). */
    ByteBuffer[] response;
    /** A HEAD request: the same head, no body. */
    boolean headOnly;

    Exchange(long started, TlsSession tls) {
        this.started = started;
        this.tls = tls;
    }

    /** The head at its full size once; null when it already is (the head is too large). */
    ByteBuffer growHead() {
        if (head.capacity() >= MAX_HEAD_BYTES) {
            return null;
        }
        head = ByteBuffer.allocate(MAX_HEAD_BYTES).put(head.flip());
        return head;
    }

    void headDone() {
        headDone = true;
        if (tls != null) {
            tls.headDone();
        }
    }
}
