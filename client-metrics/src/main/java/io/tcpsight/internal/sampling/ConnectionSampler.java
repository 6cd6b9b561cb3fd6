package io.tcpsight.internal.sampling;

import io.tcpsight.internal.model.SharedValues;
import io.tcpsight.internal.tcp.Errno;
import io.tcpsight.internal.tcp.SocketBufferState;
import io.tcpsight.internal.tcp.TcpInfoField;
import io.tcpsight.internal.tcp.TcpInfoSampler;
import io.tcpsight.internal.tcp.TcpOptions;
import io.tcpsight.internal.tcp.TcpSocketException;
import io.tcpsight.internal.tcp.TcpSockets;
import io.tcpsight.internal.tcp.TcpState;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Samples every tracked connection in one batched call, keeps the previous sample of each and
 * derives the interval between them. A descriptor that has gone (EBADF, not a socket any more),
 * or that now holds another socket (its inode differs from the tracked one), releases its
 * connection. One sampler per sampling thread.
 */
public final class ConnectionSampler {
    /** Buffer state is re-read every this many samples. */
    static final int BUFFER_READ_EVERY = 6;

    private static final OptionalLong EMPTY_QUEUE = OptionalLong.of(0);

    private final ConnectionRegistry registry;
    /** Most sockets of a process share their buffer settings: one copy of each. */
    private final SharedValues<SocketBufferState> sharedBuffers = new SharedValues<>(1_024);
    /** Made at the first connection to sample: without the native library nothing is tracked, and nothing sampled. */
    private TcpInfoSampler batch;

    private int[] fds = new int[64];
    private TrackedConnection[] order = new TrackedConnection[64];
    private boolean[] stillEmpty = new boolean[64];
    private int[] queueEntries = new int[64];
    private long reusedDescriptors;
    private long goneDescriptors;
    private long failedSamples;

    public ConnectionSampler(ConnectionRegistry registry) {
        this.registry = registry;
    }

    /** Samples now; returns the connections that were sampled successfully. */
    public List<TrackedConnection> sample() {
        List<TrackedConnection> tracked = registry.connections();
        int n = tracked.size();
        if (n == 0) {
            return new ArrayList<>();
        }
        if (batch == null) {
            batch = new TcpInfoSampler(64);
        }
        if (fds.length < n) {
            fds = new int[Math.max(n, fds.length * 2)];
            order = new TrackedConnection[fds.length];
        }
        for (int i = 0; i < n; i++) {
            order[i] = tracked.get(i);
            fds[i] = order[i].fd();
        }
        batch.sample(fds, n);
        int asked = 0;
        if (stillEmpty.length < n) {
            stillEmpty = new boolean[fds.length];
            queueEntries = new int[fds.length];
        }
        for (int i = 0; i < n; i++) {
            stillEmpty[i] = batch.succeeded(i) && queuesStillEmpty(i, order[i].previousOrNull());
            if (batch.succeeded(i) && !stillEmpty[i]) {
                queueEntries[asked++] = i;
            }
        }
        batch.readQueues(queueEntries, asked);
        long now = System.nanoTime();
        List<TrackedConnection> sampled = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            TrackedConnection connection = order[i];
            order[i] = null;
            if (!batch.succeeded(i)) {
                int errno = batch.errno(i);
                if (errno == Errno.EBADF || errno == Errno.ENOTSOCK || Errno.isNotTcp(errno)) {
                    registry.release(connection);
                    goneDescriptors++;
                } else {
                    failedSamples++;
                }
                continue;
            }
            if (reused(connection, batch.inode(i))) {
                // The socket closed without a release and its descriptor now holds another socket:
                // reading it as the old connection would give it another connection's counters.
                registry.release(connection);
                reusedDescriptors++;
                continue;
            }
            connection.latest(read(i, now, connection, stillEmpty[i]));
            sampled.add(connection);
        }
        return sampled;
    }

    /** The sample this sampler's latest {@link #sample()} took of a connection it returned: for that round. */
    public ConnectionSample sampleOf(TrackedConnection sampled) {
        return sampled.latest().orElseThrow(() -> new IllegalArgumentException("never sampled: fd " + sampled.fd()));
    }

    /** Tracked connections released because their descriptor had been reused by another socket, since start. */
    public long reusedDescriptors() {
        return reusedDescriptors;
    }

    /** Tracked connections released because their descriptor was closed or held no TCP socket any more, since start. */
    public long goneDescriptors() {
        return goneDescriptors;
    }

    /** Samples that failed for another reason (the connection stays and is sampled again), since start. */
    public long failedSamples() {
        return failedSamples;
    }

    private static boolean reused(TrackedConnection connection, long sampledInode) {
        return connection.inode() != 0 && sampledInode != 0 && sampledInode != (connection.inode() & 0xFFFF_FFFFL);
    }

    /**
     * Whether both queues of entry i are certainly still empty, so need not be read: they were empty at
     * the previous sample, and since then the connection received nothing (the receive queue grows only
     * by what arrives), sent nothing and holds nothing unsent (the send queue grows only by what the
     * application writes, which is either sent or waits unsent).
     */
    private boolean queuesStillEmpty(int i, ConnectionSample previous) {
        return previous != null
                && previous.unreadBytes == 0
                && previous.unackedBytes == 0
                && batch.has(i, TcpInfoField.BYTES_RECEIVED)
                && batch.has(i, TcpInfoField.SEGS_OUT)
                && batch.has(i, TcpInfoField.NOTSENT_BYTES)
                && batch.value(i, TcpInfoField.BYTES_RECEIVED) == previous.bytesReceived
                && batch.value(i, TcpInfoField.SEGS_OUT) == previous.segmentsOut
                && batch.value(i, TcpInfoField.NOTSENT_BYTES) == 0;
    }

    private ConnectionSample read(int i, long now, TrackedConnection connection, boolean queuesStillEmpty) {
        ConnectionSample previous = connection.previousOrNull();
        SocketBufferState buffers = previous == null ? null : previous.buffers;
        if (connection.bufferReadDue(BUFFER_READ_EVERY)) {
            try {
                SocketBufferState read = TcpSockets.bufferState(connection.fd());
                // unchanged since the last read (an idle connection): keep what it holds, no pool lookup
                buffers = read.equals(buffers) ? buffers : sharedBuffers.shared(read);
            } catch (TcpSocketException gone) {
                // closed between the two calls; the next sample releases it
            }
        }
        return ConnectionSample.at(now)
                .after(previous)
                .state(TcpState.of((int) batch.value(i, TcpInfoField.STATE)))
                .rtt(batch.value(i, TcpInfoField.RTT), minRtt(i))
                .options(TcpOptions.of((int) batch.value(i, TcpInfoField.OPTIONS)))
                .windowScales(
                        (int) batch.value(i, TcpInfoField.SND_WSCALE), (int) batch.value(i, TcpInfoField.RCV_WSCALE))
                .windows(
                        batch.value(i, TcpInfoField.SND_CWND),
                        field(i, TcpInfoField.SND_WND),
                        field(i, TcpInfoField.RCV_WND))
                .sndMss(batch.value(i, TcpInfoField.SND_MSS))
                .deliveryRate(field(i, TcpInfoField.DELIVERY_RATE))
                .limitedTimes(
                        field(i, TcpInfoField.BUSY_TIME),
                        field(i, TcpInfoField.RWND_LIMITED),
                        field(i, TcpInfoField.SNDBUF_LIMITED))
                .counters(
                        batch.value(i, TcpInfoField.TOTAL_RETRANS),
                        field(i, TcpInfoField.SEGS_OUT),
                        field(i, TcpInfoField.BYTES_ACKED),
                        field(i, TcpInfoField.BYTES_RECEIVED))
                .queues(
                        queuesStillEmpty ? EMPTY_QUEUE : batch.unreadBytes(i),
                        queuesStillEmpty ? EMPTY_QUEUE : batch.unackedBytes(i))
                .buffers(buffers)
                .build();
    }

    /** -1 when unknown: not reported, or no RTT sample yet (the kernel reports ~0U then). */
    private long minRtt(int i) {
        long value = field(i, TcpInfoField.MIN_RTT);
        return value == 0xFFFF_FFFFL ? -1 : value;
    }

    private long field(int i, TcpInfoField field) {
        return batch.has(i, field) ? batch.value(i, field) : -1;
    }
}
