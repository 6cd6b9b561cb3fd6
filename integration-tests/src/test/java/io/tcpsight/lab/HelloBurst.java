package io.tcpsight.lab;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * N Kafka client startups at once, from one thread: each connects, sends ApiVersions (what every
 * client sends first) and is timed until the broker's answer. The answer, not connect(), is what a
 * client waits for: when the accept queue is full the kernel may complete the client's side of the
 * handshake and drop the final ACK, so connect() returns in one RTT while the broker never sees the
 * connection until a retransmission (SYN-ACK at 1 s, 3 s; the client's request on its RTO backoff).
 */
public final class HelloBurst {
    private final CompletableFuture<Outcome> running;
    private final int count;
    /** When the burst gives up on the hellos not yet answered (System.nanoTime). */
    private final AtomicLong deadline;

    /** {start, answered} in System.nanoTime for each answered hello, and when the burst gave up on the rest. */
    private record Outcome(List<long[]> answered, long endedNanos) {}

    private HelloBurst(CompletableFuture<Outcome> running, int count, AtomicLong deadline) {
        this.running = running;
        this.count = count;
        this.deadline = deadline;
    }

    /** Starts {@code count} hellos to host:port at once, in the background, for at most {@code timeoutMillis}. */
    public static HelloBurst start(String host, int port, int count, long timeoutMillis) {
        AtomicLong deadline = new AtomicLong(System.nanoTime() + timeoutMillis * 1_000_000L);
        return new HelloBurst(
                CompletableFuture.supplyAsync(() -> {
                    try {
                        return run(new InetSocketAddress(host, port), count, deadline);
                    } catch (IOException failed) {
                        throw new IllegalStateException(failed);
                    }
                }),
                count,
                deadline);
    }

    /** Gives up on the hellos not answered by then (System.nanoTime), instead of at the start's timeout. */
    public void giveUpAt(long nanos) {
        deadline.set(nanos);
    }

    /**
     * The answered hellos, each timed from {@code fromNanos} or its own start, whichever came later
     * (a broker's resume: what the queue added beyond the broker's own pause).
     */
    public Times await(long fromNanos, long timeoutMillis)
            throws InterruptedException, ExecutionException, TimeoutException {
        List<Long> millis = new ArrayList<>();
        for (long[] hello : running.get(timeoutMillis, TimeUnit.MILLISECONDS).answered()) {
            millis.add((hello[1] - Math.max(fromNanos, hello[0])) / 1_000_000);
        }
        Collections.sort(millis);
        return new Times(millis, count);
    }

    /**
     * When the burst stopped waiting (System.nanoTime): a hello not answered by then counts as never
     * answered, so a test that counts late hellos from a moment needs this well past it.
     */
    public long endedNanos(long timeoutMillis) throws InterruptedException, ExecutionException, TimeoutException {
        return running.get(timeoutMillis, TimeUnit.MILLISECONDS).endedNanos();
    }

    private static Outcome run(InetSocketAddress target, int count, AtomicLong deadline) throws IOException {
        List<SocketChannel> channels = new ArrayList<>();
        List<long[]> answered = new ArrayList<>();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < count; i++) {
                SocketChannel channel = SocketChannel.open();
                channels.add(channel);
                channel.configureBlocking(false);
                Hello hello = new Hello(System.nanoTime(), "burst-" + i);
                if (channel.connect(target)) {
                    channel.register(selector, SelectionKey.OP_WRITE, hello);
                } else {
                    channel.register(selector, SelectionKey.OP_CONNECT, hello);
                }
            }
            while (answered.size() < count && System.nanoTime() < deadline.get()) {
                selector.select(100);
                for (SelectionKey key : selector.selectedKeys()) {
                    SocketChannel channel = (SocketChannel) key.channel();
                    Hello hello = (Hello) key.attachment();
                    try {
                        if (key.isConnectable() && channel.finishConnect()) {
                            key.interestOps(SelectionKey.OP_WRITE);
                        } else if (key.isWritable()) {
                            channel.write(hello.request);
                            if (!hello.request.hasRemaining()) {
                                key.interestOps(SelectionKey.OP_READ);
                            }
                        } else if (key.isReadable() && hello.read(channel)) {
                            answered.add(new long[] {hello.started, System.nanoTime()});
                            key.cancel();
                        }
                    } catch (IOException refusedOrReset) {
                        key.cancel(); // counted as never answered
                    }
                }
                selector.selectedKeys().clear();
            }
        } finally {
            for (SocketChannel channel : channels) {
                channel.close();
            }
        }
        return new Outcome(answered, System.nanoTime());
    }

    private static final class Hello {
        final long started;
        final ByteBuffer request;
        final ByteBuffer size = ByteBuffer.allocate(4);
        ByteBuffer body;

        Hello(long started, String clientId) {
            this.started = started;
            this.request = KafkaHello.apiVersionsRequest(clientId);
        }

        /** Reads what has arrived; true once the whole response is in. */
        boolean read(SocketChannel channel) throws IOException {
            if (body == null) {
                if (channel.read(size) < 0) {
                    throw new IOException("closed before the response");
                }
                if (size.hasRemaining()) {
                    return false;
                }
                body = ByteBuffer.allocate(size.flip().getInt());
            }
            if (channel.read(body) < 0) {
                throw new IOException("closed in the response");
            }
            return !body.hasRemaining();
        }
    }

    /** Sorted times in milliseconds of the answered hellos, out of how many were started. */
    public static final class Times {
        public final List<Long> millis;
        public final int attempted;

        Times(List<Long> millis, int attempted) {
            this.millis = millis;
            this.attempted = attempted;
        }

        public long percentile(double share) {
            return millis.isEmpty()
                    ? -1
                    : millis.get(Math.min(millis.size() - 1, (int) Math.floor(share * millis.size())));
        }

        public long max() {
            return millis.isEmpty() ? -1 : millis.get(millis.size() - 1);
        }

        /** Hellos answered after a second or more, or never. */
        public long overOneSecond() {
            return millis.stream().filter(ms -> ms >= 1000).count() + (attempted - millis.size());
        }

        @Override
        public String toString() {
            return String.format(
                    "%d hellos: p50 %d ms, p99 %d ms, max %d ms, %d over 1 s (%d never answered)",
                    attempted, percentile(0.5), percentile(0.99), max(), overOneSecond(), attempted - millis.size());
        }
    }
}
