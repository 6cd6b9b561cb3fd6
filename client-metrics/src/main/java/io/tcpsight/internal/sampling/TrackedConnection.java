package io.tcpsight.internal.sampling;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.model.OptionalValues;
import io.tcpsight.internal.model.PushedClientMetrics;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.UnaryOperator;

/**
 * One connection under observation: its socket, who it belongs to (completed as the owner
 * learns more) and what the last sample saw. The sampler thread writes samples; any thread may
 * read them.
 */
public final class TrackedConnection {
    private final int fd;
    /** A socket's inode is 32 bits (the kernel's get_next_ino): kept in an int, read unsigned. */
    private final int inode;
    // a field and its updater, not an AtomicReference: one object less for each of 100,000 connections
    private static final AtomicReferenceFieldUpdater<TrackedConnection, ConnectionIdentity> IDENTITY =
            AtomicReferenceFieldUpdater.newUpdater(TrackedConnection.class, ConnectionIdentity.class, "identity");
    private volatile ConnectionIdentity identity;
    /** -1 until measured; an int of milliseconds (a handshake takes seconds at most), to leave room for the mark below. */
    private volatile int handshakeMillis = -1;

    private static final AtomicReferenceFieldUpdater<TrackedConnection, Object> COUNTED_AS =
            AtomicReferenceFieldUpdater.newUpdater(TrackedConnection.class, Object.class, "countedAs");
    /**
     * What one exporter of the process keeps for the connection (the meters: the tag set its opening was counted
     * under), claimed by the first that asks: a field, where a map of 100,000 connections cost 40 bytes each.
     */
    private volatile Object countedAs;

    /**
     * When this end started connecting, in milliseconds of System.nanoTime held in an int ({@link #NOT_STARTED}
     * when not marked): a handshake is read as the difference of two such, to within a millisecond, right
     * modulo 2^32 for any shorter than 24 days. An int, not the long of nanoseconds: with the inode's int, the object is 64 bytes, not 72.
     */
    private volatile int handshakeStartedMillis = NOT_STARTED;

    private static final int NOT_STARTED = Integer.MIN_VALUE;
    /** What the component that tracks the connection keeps for it (the agent: its Kafka connection id and requests). */
    private volatile Object owner;

    private volatile ConnectionSample latest;
    /**
     * The widest window the peer advertised in the samples before the latest; -1 before two. The
     * sampler thread writes it. The latest is left out so that a window still growing shows as such.
     * An int, as the sample holds it (a window is at most 1 GiB).
     */
    private volatile int widestEarlierSndWindowBytes = -1;
    /**
     * How many samples in a row, the latest included, found the peer's window narrower than what
     * this end moved through it a round trip over the interval that ended there. The sampler thread
     * writes it. A byte held at 127, far beyond the few samples a rule waits for: with the byte below, the
     * object is 72 bytes, not 80.
     */
    private volatile byte samplesNarrowerThanTheFlow;

    /** What the client last pushed of itself on this connection (KIP-714); null until a push came on it. */
    private volatile PushedClientMetrics pushed;

    /** Below the few samples between buffer reads (ConnectionSampler.BUFFER_READ_EVERY): a byte. */
    private byte samplesSinceBufferRead;

    /**
     * Set once by the component told of every request on this connection (the broker agent's request
     * hook): only such a connection may go unread in a round, since a request is what starts its traffic.
     */
    private volatile boolean requestsTold;
    /** A request came since the sampler last decided to read it: the hook's write, the sampler's clear. */
    private volatile boolean requestedSinceRead;
    /** The sampler's: reads in a row, the latest included, that found nothing moved (held at 127). */
    private byte quietReads;
    /** The sampler's: whether the latest round left it unread and carried its last sample. */
    private boolean carried;
    /** What the round that last judged it kept of that judgement (the monitor's; opaque here). */
    private volatile Object judgement;
    /** False once its registry let it go (closed, replaced on its descriptor, or forgotten); never true again. */
    private volatile boolean tracked = true;

    TrackedConnection(int fd, long inode, ConnectionIdentity identity) {
        this.fd = fd;
        this.inode = (int) inode;
        this.identity = identity.shared();
    }

    /** Whether its registry still tracks it: what a component's own tables of connections keep in step with. */
    public boolean isTracked() {
        return tracked;
    }

    void untracked() {
        tracked = false;
    }

    public int fd() {
        return fd;
    }

    /** The socket's inode, from a census or read at registration, else 0 (unknown): what tells it from a later socket on the same fd. */
    public long inode() {
        return Integer.toUnsignedLong(inode);
    }

    public ConnectionIdentity identity() {
        return identity;
    }

    /**
     * Applies a change atomically: two threads that complete the identity at once (a request hook
     * and a namer) both land. {@code change} may run more than once and must have no side effect.
     */
    public void updateIdentity(UnaryOperator<ConnectionIdentity> change) {
        IDENTITY.updateAndGet(this, current -> change.apply(current).shared());
    }

    /** Connection setup time, when the owner measured it (client side). */
    public OptionalLong handshakeMillis() {
        return OptionalValues.unlessNegative(handshakeMillis);
    }

    public void handshakeMillis(long millis) {
        handshakeMillis = (int) Math.min(Integer.MAX_VALUE, millis);
    }

    /** Marks when this end started connecting; {@link #handshakeCompleted} turns it into {@link #handshakeMillis()}. */
    public void handshakeStarted(long nanoTime) {
        int millis = millisOf(nanoTime);
        handshakeStartedMillis = millis == NOT_STARTED ? millis + 1 : millis; // a millisecond off, once in 49 days
    }

    /** Records the handshake's duration once, if a start was marked. */
    public void handshakeCompleted(long nanoTime) {
        int started = handshakeStartedMillis;
        if (started != NOT_STARTED) {
            handshakeStartedMillis = NOT_STARTED;
            handshakeMillis = Math.max(0, millisOf(nanoTime) - started); // int arithmetic: right across a wrap
        }
    }

    private static int millisOf(long nanoTime) {
        return (int) Math.floorDiv(nanoTime, 1_000_000L);
    }

    /**
     * What the component that tracks the connection keeps for it: the agent keeps its Kafka connection id
     * and what the requests on it said, reached from here each round rather than looked up by the id.
     */
    public Optional<Object> owner() {
        return Optional.ofNullable(owner);
    }

    public void owner(Object state) {
        owner = state;
    }

    /**
     * The last sample; empty before the first. Sampling's own: what the rules judged and every
     * output shows is the round's sample ({@code JudgedConnection}), never one taken since.
     */
    Optional<ConnectionSample> latest() {
        return Optional.ofNullable(latest);
    }

    /** When the latest sample was taken (System.nanoTime); empty before the first. */
    public OptionalLong latestSampleNanos() {
        ConnectionSample sample = latest;
        return sample == null ? OptionalLong.empty() : OptionalLong.of(sample.nanoTime);
    }

    /**
     * When the latest sample's interval began: what a count of requests over the same round must start
     * from where the connection was carried unread before it; empty before an interval.
     */
    public OptionalLong latestIntervalStartNanos() {
        ConnectionSample sample = latest;
        return sample == null ? OptionalLong.empty() : sample.intervalStartNanos();
    }

    /**
     * The interval that ended at the latest sample: what this socket moved since the one before,
     * for a component that ties counts kept elsewhere (a client's own metrics) to the socket that
     * carried them; empty before two samples.
     */
    public Optional<IntervalStats> latestInterval() {
        ConnectionSample sample = latest;
        return sample == null ? Optional.empty() : sample.interval();
    }

    ConnectionSample previousOrNull() {
        return latest;
    }

    void latest(ConnectionSample sample) {
        ConnectionSample previous = latest;
        if (previous != null) {
            long window = previous.sndWindowBytes().orElse(-1);
            if (window > widestEarlierSndWindowBytes) {
                widestEarlierSndWindowBytes = (int) window; // the sample's own int
            }
        }
        samplesNarrowerThanTheFlow =
                narrowerThanTheFlow(sample) ? (byte) Math.min(Byte.MAX_VALUE, samplesNarrowerThanTheFlow + 1) : 0;
        latest = sample;
    }

    /**
     * The widest window the peer advertised in this connection's samples before the latest: how far
     * its receive buffer had opened, which a window full of unread data at one sample does not tell,
     * and, against the latest, whether it is opening still.
     */
    public OptionalLong widestEarlierSndWindowBytes() {
        return widestEarlierSndWindowBytes < 0 ? OptionalLong.empty() : OptionalLong.of(widestEarlierSndWindowBytes);
    }

    /**
     * Whether the peer's window at this sample is narrower than what this end moved through it a
     * round trip over the interval that ended there: the window was wider between the samples, and
     * has closed since on data the peer has not read.
     */
    private static boolean narrowerThanTheFlow(ConnectionSample sample) {
        // once a sample per connection in the sampling loop: no lambda
        long window = sample.sndWindowBytes().orElse(-1);
        long rtt = sample.pathRttMicros();
        if (window < 0 || rtt <= 0 || !sample.movedInInterval()) {
            return false; // nothing sent: no flow for the window to be narrower than
        }
        return window < sample.interval().get().sendRateBytesPerSecond() * rtt / 1e6;
    }

    /**
     * How many samples in a row, the latest included, found the peer's window narrower than what
     * this end moved through it a round trip: 0 where the latest did not.
     */
    public int samplesNarrowerThanTheFlow() {
        return samplesNarrowerThanTheFlow;
    }

    /** What the client last pushed of itself on this connection (KIP-714), if a push came on it. */
    public Optional<PushedClientMetrics> pushed() {
        return Optional.ofNullable(pushed);
    }

    boolean pushedNothing() {
        return pushed == null;
    }

    /**
     * Keeps a push that came on this connection: the latest replaces the one before, so a connection
     * holds one (with the lag the one before carried, so a growing lag is known).
     */
    public void pushed(PushedClientMetrics metrics) {
        if (pushed != null && metrics.receivedNanos() < pushed.receivedNanos()) {
            return; // two request threads handed pushes on out of order: the newer one stays
        }
        pushed = metrics.following(pushed);
    }

    /**
     * Every request on this connection will be told through {@link #requested()}, so the sampler may
     * leave it unread in rounds where it is idle and no request came.
     */
    public void requestsTold() {
        requestsTold = true;
    }

    /** A request came on this connection: it is read in the next round. Called for every request: one volatile read. */
    public void requested() {
        if (!requestedSinceRead) {
            requestedSinceRead = true;
        }
    }

    boolean requestsToldAndNoneSinceRead() {
        return requestsTold && !requestedSinceRead;
    }

    boolean requestedSinceRead() {
        return requestedSinceRead;
    }

    /** The sampler reads it now: a request from here on is for the next round. */
    void readNow() {
        requestedSinceRead = false;
    }

    /** After a read: whether it found nothing moved, counted in a row. */
    void quiet(boolean nothingMoved) {
        quietReads = nothingMoved ? (byte) Math.min(Byte.MAX_VALUE, quietReads + 1) : 0;
    }

    int quietReads() {
        return quietReads;
    }

    void carried(boolean value) {
        carried = value;
    }

    /**
     * Whether the latest round left this connection unread: idle, no request since its last read, so
     * its last sample and its last judgement stand for this round too.
     */
    public boolean carried() {
        return carried;
    }

    /** What an exporter keeps for this connection ({@link #countAs}); empty when none does. */
    public Optional<Object> countedAs() {
        return Optional.ofNullable(countedAs);
    }

    /**
     * Sets what an exporter keeps for this connection, if it still holds {@code expected}: one exporter's at a
     * time (another keeps its own elsewhere), and a close and a round that race set it once.
     */
    public boolean countAs(Object expected, Object kept) {
        return COUNTED_AS.compareAndSet(this, expected, kept);
    }

    /** What the round that last judged it kept of that judgement; empty before one. The monitor's own. */
    public Optional<Object> judgement() {
        return Optional.ofNullable(judgement);
    }

    public void judgement(Object kept) {
        judgement = kept;
    }

    /** Buffer state is re-read every few samples: it changes slowly and costs five system calls. */
    boolean bufferReadDue(int everySamples) {
        if (latest == null || latest.buffers == null || ++samplesSinceBufferRead >= everySamples) {
            samplesSinceBufferRead = 0;
            return true;
        }
        return false;
    }

    @Override
    public String toString() {
        return "fd " + fd + " " + identity.describe();
    }
}
