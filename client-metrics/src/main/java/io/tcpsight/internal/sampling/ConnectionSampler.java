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
 * Samples every tracked connection in batched calls (a batch's connections in each), keeps the previous sample of each and
 * derives the interval between them. A descriptor that has gone (EBADF, not a socket any more),
 * or that now holds another socket (its inode differs from the tracked one), releases its
 * connection. One sampler per sampling thread.
 */
public final class ConnectionSampler {
    /** Buffer state is re-read every this many samples. */
    static final int BUFFER_READ_EVERY = 6;

    /**
     * An idle connection whose every request is told ({@link TrackedConnection#requestsTold()}) is read
     * every this many rounds, in a phase set by its descriptor so that they spread over the rounds, and
     * carried in the others; a request on it has it read in the next round. Twelve, not six: on a broker of
     * 15,000 idle connections a round cost 1.23 µs a connection against 1.60-1.93 at six, side by side
     * (docs/benchmarks.md), half the kernel's reads; what a request does not announce (a response held past two
     * rounds with none after it, a close Kafka's channel did not tell) is found within twelve rounds.
     */
    static final int IDLE_READ_EVERY = 12;

    /**
     * Reads in a row that found nothing moved before a connection is carried: a response written after
     * the read that saw its request (a long poll's) comes in the interval after, which the second read sees.
     */
    static final int QUIET_READS_BEFORE_CARRIED = 2;

    /**
     * Connections read in one kernel call. A round cost no more a connection in batches of it than in one call
     * for all (docs/benchmarks.md); what the sampler holds is a batch's: its arrays and the kernel's records, which
     * sized to the process's connections were 2-4 MB of heap and 30-60 MB of direct memory at 100,000.
     */
    static final int BATCH = 1_024;

    private static final OptionalLong EMPTY_QUEUE = OptionalLong.of(0);

    private final ConnectionRegistry registry;
    /** Connections read in one kernel call ({@link #BATCH}). */
    private final int batchSize;
    /** Most sockets of a process share their buffer settings: one copy of each. */
    private final SharedValues<SocketBufferState> sharedBuffers = new SharedValues<>(1_024);
    /** Made at the first connection to sample: without the native library nothing is tracked, and nothing sampled. */
    private TcpInfoSampler batch;

    /*
     * The working arrays of one batch: a round reads its connections a batch at a time, so that what it holds
     * (these, and the kernel's records in direct memory) is bounded however many connections the process has.
     */
    private final int[] fds;
    private final TrackedConnection[] order;
    /** Whether each tracked connection of the batch, in registry order, is in the round (read, or carried). */
    private final boolean[] inRound;

    private final int[] readIndex;
    /** Whether each connection read this round was carried in the round before and read now for a request. */
    private final boolean[] wokenByRequest;

    private long rounds;
    /** When the previous round decided what to read: a connection it carried held its counters until then. */
    private long previousDecisionNanos;

    private final boolean[] stillEmpty;
    private final boolean[] readSucceeded;
    private final int[] queueEntries;
    private long reusedDescriptors;
    private long goneDescriptors;
    private long failedSamples;

    public ConnectionSampler(ConnectionRegistry registry) {
        this(registry, BATCH);
    }

    /** With batches of {@code batchSize} connections (a test's, to have a round span several). */
    ConnectionSampler(ConnectionRegistry registry, int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("a batch of " + batchSize + " connections: at least 1");
        }
        this.registry = registry;
        this.batchSize = batchSize;
        fds = new int[batchSize];
        order = new TrackedConnection[batchSize];
        inRound = new boolean[batchSize];
        readIndex = new int[batchSize];
        wokenByRequest = new boolean[batchSize];
        stillEmpty = new boolean[batchSize];
        readSucceeded = new boolean[batchSize];
        queueEntries = new int[batchSize];
    }

    /**
     * Samples now; returns the round's connections in registry order: those sampled successfully, and
     * those carried unread ({@link TrackedConnection#carried()}), whose last sample stands.
     */
    public List<TrackedConnection> sample() {
        List<TrackedConnection> tracked = registry.connections();
        int all = tracked.size();
        long decided = System.nanoTime();
        long round = rounds++;
        long carriedUntil = previousDecisionNanos;
        previousDecisionNanos = decided;
        List<TrackedConnection> sampled = new ArrayList<>(all);
        if (all == 0) {
            return sampled;
        }
        if (batch == null) {
            batch = new TcpInfoSampler(batchSize);
        }
        for (int from = 0; from < all; from += batchSize) {
            sampleBatch(tracked, from, Math.min(all, from + batchSize), round, carriedUntil, sampled);
        }
        return sampled;
    }

    /** Reads the connections {@code from} to {@code to} of the round's, adding those in the round to {@code sampled}. */
    private void sampleBatch(
            List<TrackedConnection> tracked,
            int from,
            int to,
            long round,
            long carriedUntil,
            List<TrackedConnection> sampled) {
        int n = 0;
        for (int c = from; c < to; c++) {
            TrackedConnection connection = tracked.get(c);
            boolean carry = carries(connection, round);
            boolean carriedBefore = connection.carried();
            if (carry
                    != carriedBefore) { // written only when it changes: most rounds leave most connections as they were
                connection.carried(carry);
            }
            inRound[c - from] = carry;
            if (!carry) {
                // a request told from here on is this read's or the next round's: cleared before the kernel read
                boolean requested = connection.requestedSinceRead();
                connection.readNow();
                // woken by a request after a round that carried it: nothing had moved when that round decided
                wokenByRequest[n] = carriedBefore && requested;
                readIndex[c - from] = n;
                order[n] = connection;
                fds[n] = connection.fd();
                n++;
            }
        }
        batch.sample(fds, n);
        int asked = 0;
        for (int i = 0; i < n; i++) {
            stillEmpty[i] = batch.succeeded(i) && queuesStillEmpty(i, order[i].previousOrNull());
            if (batch.succeeded(i) && !stillEmpty[i]) {
                queueEntries[asked++] = i;
            }
        }
        batch.readQueues(queueEntries, asked);
        long now = System.nanoTime();
        for (int i = 0; i < n; i++) {
            TrackedConnection connection = order[i];
            order[i] = null;
            readSucceeded[i] = false;
            if (!batch.succeeded(i)) {
                int errno = batch.errno(i);
                if (errno == Errno.EBADF || errno == Errno.ENOTSOCK || Errno.isNotTcp(errno)) {
                    registry.release(connection);
                    goneDescriptors++;
                } else {
                    failedSamples++;
                    connection.quiet(false); // unread, and a request it was told of is cleared: read it next round
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
            ConnectionSample sample = read(i, now, connection, stillEmpty[i], carriedUntil);
            connection.latest(sample);
            connection.quiet(stillEmpty[i] && sample.state() == TcpState.ESTABLISHED);
            readSucceeded[i] = true;
        }
        for (int c = from; c < to; c++) {
            if (inRound[c - from] || readSucceeded[readIndex[c - from]]) {
                sampled.add(tracked.get(c));
            }
        }
    }

    /**
     * Whether a connection is carried this round, unread: every request on it is told and none came
     * since its last read, its last reads found it established with nothing moved, no client told it
     * figures of its own (they age), and this is not its round to be read all the same.
     */
    private static boolean carries(TrackedConnection connection, long round) {
        return connection.requestsToldAndNoneSinceRead()
                && connection.quietReads() >= QUIET_READS_BEFORE_CARRIED
                && connection.pushedNothing()
                && (round + connection.fd()) % IDLE_READ_EVERY != 0;
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
                && previous.sentSegments(batch.value(i, TcpInfoField.SEGS_OUT))
                && batch.value(i, TcpInfoField.NOTSENT_BYTES) == 0;
    }

    private ConnectionSample read(
            int i, long now, TrackedConnection connection, boolean queuesStillEmpty, long carriedUntil) {
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
        ConnectionSample.Builder sample = ConnectionSample.at(now).after(previous);
        if (wokenByRequest[i]) {
            // carried in the previous round and read for a request told since: nothing had moved on it when that
            // round decided (no request was told by then), so its interval is that round's, as if it had been read
            // then. A read in its phase, which no request caused, counts from its last read: bytes may have moved
            // at any time since (a response held past two rounds).
            sample.intervalFrom(carriedUntil);
        }
        return sample.state(TcpState.of((int) batch.value(i, TcpInfoField.STATE)))
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
