package io.tcpsight.agent.internal.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The endpoint's connections, on one selector thread that never blocks: it accepts, reads request
 * heads (through TLS when on), frames the answers and writes them as clients read. A half-sent
 * request (slowloris) or a client that never reads costs a buffer, not a thread. Only a complete
 * GET or HEAD reaches the {@link Handler}; anything else gets a fixed answer at once (400, 405,
 * 431). Every connection has a deadline for its head and one for its whole life, and each answer
 * closes its connection. At most {@code maxConnections} are open: past that, the oldest one still
 * sending its head makes room, else the oldest of any (an answer nobody reads). An accept that
 * fails pauses accepting; it never closes the listener.
 */
final class HttpTransport implements AutoCloseable {
    /** After an accept failure (the process out of descriptors) accepting pauses, doubling up to a second. */
    static final long ACCEPT_PAUSE_FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    static final long ACCEPT_PAUSE_MAX_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final long HEAD_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    static final long LIFETIME_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long EXPIRY_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    /** What answers a complete GET or HEAD; called on the selector thread, it must not block. */
    interface Handler {
        void handle(RequestHead.Parsed request, Reply reply);
    }

    private final ServerSocketChannel server;
    private final Selector selector;
    private final SelectionKey acceptKey;
    private final EndpointAccess access;
    private final int maxConnections;
    private final EndpointWarnings warnings;
    private final Queue<Runnable> selectorTasks = new ConcurrentLinkedQueue<>();
    private final Thread loop;
    private volatile Handler handler;
    private volatile boolean open = true;
    // Selector thread only:
    private int connections;
    private long acceptPause;
    private long acceptPausedUntil;
    private long lastExpiry = System.nanoTime();

    private HttpTransport(
            ServerSocketChannel server,
            Selector selector,
            SelectionKey acceptKey,
            EndpointAccess access,
            int maxConnections,
            EndpointWarnings warnings) {
        this.server = server;
        this.selector = selector;
        this.acceptKey = acceptKey;
        this.access = access;
        this.maxConnections = maxConnections;
        this.warnings = warnings;
        this.loop = daemon(this::run, "tcpsight-agent-http");
    }

    /** Binds the port; nothing is accepted before {@link #start}. */
    static HttpTransport bind(
            String host, int port, EndpointAccess access, int maxConnections, EndpointWarnings warnings)
            throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        Selector selector = Selector.open();
        try {
            // A backlog as deep as the connection cap: a burst of scrapers must not overflow the accept
            // queue, where a dropped SYN costs its client a 1 s retransmission (seen at a backlog of 64).
            server.bind(new InetSocketAddress(host, port), maxConnections);
            server.configureBlocking(false);
            SelectionKey acceptKey = server.register(selector, SelectionKey.OP_ACCEPT);
            return new HttpTransport(server, selector, acceptKey, access, maxConnections, warnings);
        } catch (IOException | RuntimeException failure) {
            selector.close();
            server.close();
            throw failure;
        }
    }

    void start(Handler handler) {
        this.handler = handler;
        loop.start();
    }

    int port() {
        return server.socket().getLocalPort();
    }

    int maxConnections() {
        return maxConnections;
    }

    /** Runs a task on the selector thread, soon. */
    void onSelector(Runnable task) {
        selectorTasks.add(task);
        selector.wakeup();
    }

    @Override
    public void close() {
        open = false;
        try {
            selector.wakeup();
            loop.join(2000);
            selector.close();
            server.close();
        } catch (IOException | InterruptedException ignored) {
            // closing for good: nothing left to tell
        }
    }

    private void run() {
        try {
            while (open) {
                selector.select(250);
                for (Runnable task = selectorTasks.poll(); task != null; task = selectorTasks.poll()) {
                    task.run();
                }
                for (SelectionKey key : selector.selectedKeys()) {
                    handle(key);
                }
                selector.selectedKeys().clear();
                long now = System.nanoTime();
                if (acceptPausedUntil != 0 && now - acceptPausedUntil >= 0 && acceptKey.isValid()) {
                    acceptPausedUntil = 0;
                    acceptKey.interestOps(SelectionKey.OP_ACCEPT);
                }
                if (now - lastExpiry >= EXPIRY_EVERY_NANOS) {
                    // Not per event: a flood wakes the selector thousands of times a second.
                    lastExpiry = now;
                    expire(now);
                }
            }
        } catch (IOException | RuntimeException stopped) {
            // the endpoint is closing, or the selector broke: answering stops, the agent goes on
        } finally {
            for (SelectionKey key : selector.keys()) {
                closeQuietly(key);
            }
        }
    }

    private void handle(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        if (key == acceptKey) {
            try {
                accept();
                acceptPause = 0;
            } catch (IOException | RuntimeException failure) {
                pauseAccepting(failure);
            }
            return;
        }
        try {
            if (!((Exchange) key.attachment()).headDone) {
                read(key); // a TLS handshake may want to write before the head is in
            } else if (key.isWritable()) {
                write(key);
            }
        } catch (IOException | RuntimeException broken) {
            closeConnection(key);
        }
    }

    /**
     * An accept that failed (the process at its open-file limit, EMFILE) stops accepting for a while,
     * doubling up to a second, and never closes the listener: the port answers again once descriptors
     * are free. One log line per kind of failure.
     */
    private void pauseAccepting(Throwable failure) {
        acceptPause = acceptPause == 0 ? ACCEPT_PAUSE_FIRST_NANOS : Math.min(ACCEPT_PAUSE_MAX_NANOS, 2 * acceptPause);
        acceptPausedUntil = System.nanoTime() + acceptPause;
        if (acceptKey.isValid()) {
            acceptKey.interestOps(0);
        }
        String kind = failure.getClass().getSimpleName() + ": " + failure.getMessage();
        warnings.once(
                kind,
                "tcpsight agent: the HTTP endpoint could not accept a connection (" + kind
                        + "); it pauses accepting and tries again, the port stays open");
    }

    private void accept() throws IOException {
        for (SocketChannel client = server.accept(); client != null; client = server.accept()) {
            if (connections >= maxConnections && !evictOldest()) {
                client.close(); // the cheapest refusal: no buffer, no key
                continue;
            }
            if (!access.allows(((InetSocketAddress) client.getRemoteAddress()).getAddress())) {
                client.close();
                warnings.once(
                        "allowlist",
                        "tcpsight agent: the HTTP endpoint refuses connections from addresses outside "
                                + EndpointAccess.ALLOW + " (logged once)");
                continue;
            }
            client.configureBlocking(false);
            Exchange exchange =
                    new Exchange(System.nanoTime(), access.tls() ? new TlsSession(access.newEngine()) : null);
            client.register(selector, SelectionKey.OP_READ, exchange);
            connections++;
        }
    }

    private void read(SelectionKey key) throws IOException {
        Exchange exchange = (Exchange) key.attachment();
        SocketChannel channel = (SocketChannel) key.channel();
        int read;
        if (exchange.tls == null) {
            if (!exchange.head.hasRemaining()) {
                exchange.growHead();
            }
            read = channel.read(exchange.head);
        } else {
            read = exchange.tls.read(channel, () -> exchange.head, exchange::growHead);
            key.interestOps(exchange.tls.wantsWrite() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
        }
        if (read == -1) {
            closeConnection(key);
            return;
        }
        RequestHead.Parsed parsed = RequestHead.parse(exchange.head, exchange.scanned);
        if (parsed == null) {
            // Where the blank line may still begin: the last three bytes may be "\r\n\r" of it.
            exchange.scanned = Math.max(0, exchange.head.position() - 3);
            boolean full = !exchange.head.hasRemaining() && exchange.head.capacity() == Exchange.MAX_HEAD_BYTES;
            if (full || read == TlsSession.HEAD_FULL) {
                exchange.headDone();
                respond(key, Response.text(431, "request head over " + Exchange.MAX_HEAD_BYTES + " bytes\n"));
            }
            return;
        }
        exchange.headDone();
        key.interestOps(0); // until the answer is ready
        if (parsed.method().equals("?")) {
            respond(key, Response.BAD_REQUEST);
            return;
        }
        if (!parsed.method().equals("GET") && !parsed.method().equals("HEAD")) {
            respond(key, Response.GET_ONLY);
            return;
        }
        exchange.headOnly = parsed.method().equals("HEAD");
        handler.handle(parsed, response -> respond(key, response));
    }

    private void write(SelectionKey key) throws IOException {
        Exchange exchange = (Exchange) key.attachment();
        SocketChannel channel = (SocketChannel) key.channel();
        boolean sent;
        if (exchange.tls == null) {
            channel.write(exchange.response);
            // Every part, not the last: a view's empty tail has nothing left from the start.
            sent = !TlsSession.remaining(exchange.response);
        } else {
            sent = exchange.tls.write(channel, exchange.response);
        }
        if (sent) {
            closeConnection(key);
        }
    }

    /** On the selector thread: the answer goes out as the client reads it. */
    private void respond(SelectionKey key, Response response) {
        if (!key.isValid()) {
            return;
        }
        Exchange exchange = (Exchange) key.attachment();
        exchange.response = response.buffers(exchange.headOnly);
        key.interestOps(SelectionKey.OP_WRITE);
    }

    /**
     * Makes room: closes the connection that has been sending its head the longest, else the oldest
     * one of any kind (an answer its client does not read, or one waiting for its render); false
     * when there is none.
     */
    private boolean evictOldest() {
        SelectionKey oldestHead = null;
        SelectionKey oldest = null;
        for (SelectionKey key : selector.keys()) {
            if (key.isValid() && key.attachment() instanceof Exchange) {
                if (!((Exchange) key.attachment()).headDone && older(key, oldestHead)) {
                    oldestHead = key;
                }
                if (older(key, oldest)) {
                    oldest = key;
                }
            }
        }
        SelectionKey evicted = oldestHead != null ? oldestHead : oldest;
        if (evicted != null) {
            closeConnection(evicted);
        }
        return evicted != null;
    }

    private static boolean older(SelectionKey key, SelectionKey than) {
        return than == null || ((Exchange) key.attachment()).started < ((Exchange) than.attachment()).started;
    }

    /** Closes connections whose head is late or whose whole exchange outlived its deadline. */
    private void expire(long now) {
        for (SelectionKey key : selector.keys()) {
            if (key.isValid() && key.attachment() instanceof Exchange) {
                Exchange exchange = (Exchange) key.attachment();
                boolean headLate = !exchange.headDone && now - exchange.started > HEAD_TIMEOUT_NANOS;
                if (headLate || now - exchange.started > LIFETIME_NANOS) {
                    closeConnection(key);
                }
            }
        }
    }

    private void closeConnection(SelectionKey key) {
        if (key.isValid() || key.channel().isOpen()) {
            connections--;
        }
        closeQuietly(key);
    }

    static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(SelectionKey key) {
        key.cancel();
        try {
            key.channel().close();
        } catch (IOException ignored) {
            // already gone
        }
    }
}
