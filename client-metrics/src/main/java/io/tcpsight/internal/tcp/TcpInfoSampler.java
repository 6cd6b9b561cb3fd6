package io.tcpsight.internal.tcp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads tcp_info of many sockets in one JNI call into buffers that are reused from sample to
 * sample, so a sampling loop allocates nothing per socket. Errors are per entry (a closed or
 * reused descriptor, a non-TCP socket) and never fail the whole sample.
 *
 * <p>Not thread-safe: one sampler per sampling thread.
 */
public final class TcpInfoSampler {
    private ByteBuffer fdBuffer;
    private IntBuffer fds;
    private ByteBuffer records;
    private int capacity;
    private int count;
    private ByteBuffer queueFds;
    private ByteBuffer queues;

    public TcpInfoSampler(int initialCapacity) {
        NativeTcp.requireAvailable();
        allocate(Math.max(1, initialCapacity));
    }

    private void allocate(int newCapacity) {
        fdBuffer = ByteBuffer.allocateDirect(newCapacity * Integer.BYTES).order(ByteOrder.nativeOrder());
        fds = fdBuffer.asIntBuffer();
        records =
                ByteBuffer.allocateDirect(newCapacity * NativeTcp.RECORD_STRIDE).order(ByteOrder.nativeOrder());
        capacity = newCapacity;
    }

    /** Samples the first {@code n} descriptors of {@code descriptors}. */
    public void sample(int[] descriptors, int n) {
        if (n < 0 || n > descriptors.length) {
            throw new IllegalArgumentException("sample count " + n + " is outside 0.." + descriptors.length);
        }
        if (n > capacity) {
            allocate(Math.max(n, capacity * 2));
        }
        fds.clear();
        fds.put(descriptors, 0, n);
        NativeTcp.sampleBatch(fdBuffer, n, records);
        count = n;
    }

    /**
     * Reads the queues (SIOCINQ, SIOCOUTQ) of these entries of the last sample, in one JNI call: the
     * sample itself leaves them unknown, since a connection that moved nothing keeps them as they
     * were, and two ioctls a socket were a third of a big broker's round.
     */
    public void readQueues(int[] entries, int n) {
        if (n == 0) {
            return;
        }
        if (queueFds == null || queueFds.capacity() < n * Integer.BYTES) {
            int size = Math.max(n, 64);
            queueFds = ByteBuffer.allocateDirect(size * Integer.BYTES).order(ByteOrder.nativeOrder());
            queues = ByteBuffer.allocateDirect(size * 2 * Integer.BYTES).order(ByteOrder.nativeOrder());
        }
        for (int i = 0; i < n; i++) {
            base(entries[i]); // in range
            queueFds.putInt(i * Integer.BYTES, fds.get(entries[i]));
        }
        NativeTcp.queueBatch(queueFds, n, queues);
        for (int i = 0; i < n; i++) {
            int base = base(entries[i]);
            records.putInt(base + 8, queues.getInt(2 * i * Integer.BYTES));
            records.putInt(base + 12, queues.getInt((2 * i + 1) * Integer.BYTES));
        }
    }

    /** Entries in the last sample. */
    public int count() {
        return count;
    }

    private int base(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("entry " + index + " of a sample of " + count);
        }
        return index * NativeTcp.RECORD_STRIDE;
    }

    private int status(int index) {
        return records.getInt(base(index));
    }

    /**
     * The inode of the socket an entry was read from, the low 32 bits (all a socket inode has), or 0
     * when the entry failed: a socket that reused a tracked descriptor has another one.
     */
    public long inode(int index) {
        return Integer.toUnsignedLong(records.getInt(base(index) + 4));
    }

    /** Bytes the kernel received that the application has not read yet (SIOCINQ); empty when unknown or not read. */
    public OptionalLong unreadBytes(int index) {
        int value = records.getInt(base(index) + 8);
        return value < 0 ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /** Bytes the application wrote that the peer has not acknowledged yet (SIOCOUTQ); empty when unknown or not read. */
    public OptionalLong unackedBytes(int index) {
        int value = records.getInt(base(index) + 12);
        return value < 0 ? OptionalLong.empty() : OptionalLong.of(value);
    }

    public boolean succeeded(int index) {
        return status(index) >= TcpInfo.MINIMUM_LENGTH;
    }

    /** The errno of a failed entry, or 0 when it succeeded. */
    public int errno(int index) {
        int status = status(index);
        return status < 0 ? -status : 0;
    }

    /** Why an entry failed; empty when it succeeded. */
    public Optional<String> error(int index) {
        int status = status(index);
        if (status >= TcpInfo.MINIMUM_LENGTH) {
            return Optional.empty();
        }
        return Optional.of(
                status < 0 ? Errno.describe(-status) : "kernel filled only " + status + " bytes of tcp_info");
    }

    /** Bytes of tcp_info the kernel filled for an entry (0 when it failed). */
    public int filledBytes(int index) {
        return Math.max(0, status(index));
    }

    public boolean has(int index, TcpInfoField field) {
        return succeeded(index) && field.end() <= status(index);
    }

    /** A field of an entry, without allocating; the entry must have it ({@link #has}). */
    public long value(int index, TcpInfoField field) {
        if (!has(index, field)) {
            throw new IllegalStateException(field.kernelName() + " is not available for entry " + index + ": "
                    + (succeeded(index)
                            ? "kernel filled " + status(index) + " bytes (added in " + field.sinceKernel() + ")"
                            : error(index)));
        }
        return readField(index, field);
    }

    public OptionalLong get(int index, TcpInfoField field) {
        return has(index, field) ? OptionalLong.of(readField(index, field)) : OptionalLong.empty();
    }

    private long readField(int index, TcpInfoField field) {
        return field.read(records, base(index) + NativeTcp.RECORD_HEADER);
    }

    /** An immutable copy of one entry, for keeping beyond the next sample. */
    public TcpInfo snapshot(int index) {
        if (!succeeded(index)) {
            throw new TcpSocketException("entry " + index + " has no tcp_info: " + error(index), errno(index));
        }
        return TcpInfo.copyOf(records, base(index) + NativeTcp.RECORD_HEADER, status(index));
    }
}
