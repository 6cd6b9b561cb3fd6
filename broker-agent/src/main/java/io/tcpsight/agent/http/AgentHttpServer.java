package io.tcpsight.agent.http;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.diagnose.FindingJson;
import io.tcpsight.export.ConnectionJson;
import io.tcpsight.export.TcpsightMeterBinder;
import io.tcpsight.monitor.ConnectionMonitor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The agent's HTTP endpoint: GET /metrics (Prometheus text), /findings (JSON array in the shared
 * finding format), /connections?top=N (the worst connections with their TCP_INFO). Binds to
 * loopback unless configured otherwise.
 *
 * <p>Built so that no client can stall it for others. One selector thread reads request heads and
 * writes responses without ever blocking, so a half-sent request (slowloris) or a client that
 * never reads costs a buffer, not a thread. Only a complete GET reaches the bounded renderer pool;
 * anything else gets a fixed answer at once (400, 405, 404, 431, 503). Every connection has a
 * deadline for its head and one for its whole life, and each answer closes its connection. At most
 * {@link #connectionCap} are open, a share of the process's open-file limit: past that, the oldest
 * one still sending its head makes room, else the oldest of any (an answer nobody reads). Requests
 * for a resource that arrive within a second share one render and one body, so what the endpoint
 * holds is bounded whatever its clients do. An accept that fails pauses accepting; it never closes
 * the listener.
 */
public final class AgentHttpServer implements AutoCloseable {
    /** The most connections ever held; fewer where the process's open-file limit is low (see {@link #connectionCap}). */
    static final int MAX_CONNECTIONS = 1024;
    /** With TLS each connection holds two packet buffers (about 33 KB): fewer of them, for the same few MB. */
    static final int MAX_TLS_CONNECTIONS = 128;
    /** The fewest, however low the limit: a few scrapers and a curl. */
    static final int MIN_CONNECTIONS = 16;
    /** A render served to requests that arrive while it is this fresh: a flood costs one render. */
    static final long REUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);
    /** After an accept failure (the process out of descriptors) accepting pauses, doubling up to a second. */
    static final long ACCEPT_PAUSE_FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    static final long ACCEPT_PAUSE_MAX_NANOS = TimeUnit.SECONDS.toNanos(1);

    static final int MAX_HEAD_BYTES = 8 * 1024;
    static final long HEAD_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    static final long LIFETIME_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long EXPIRY_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final int RENDERERS = 2;
    private static final int RENDER_QUEUE = 64;

    private final ServerSocketChannel server;
    private final Selector selector;
    private final ThreadPoolExecutor renderers;
    private final Routes routes;
    private final EndpointAccess access;
    private final Queue<Runnable> selectorTasks = new ConcurrentLinkedQueue<>();
    private final Thread loop;
    private final int maxConnections;
    private final Consumer<String> warn;
    private final Set<String> failuresLogged = ConcurrentHashMap.newKeySet();
    private volatile boolean open = true;
    // Selector thread only:
    private SelectionKey acceptKey;
    private int connections;
    private long acceptPause;
    private long acceptPausedUntil;
    private long lastExpiry = System.nanoTime();
    private final SharedRender metrics;
    private final SharedRender findings;
    private final SharedRender connectionsPage;

    private AgentHttpServer(
            ServerSocketChannel server,
            Selector selector,
            Routes routes,
            EndpointAccess access,
            int maxConnections,
            Consumer<String> warn) {
        this.server = server;
        this.access = access;
        this.selector = selector;
        this.routes = routes;
        this.maxConnections = maxConnections;
        this.warn = warn;
        this.metrics = new SharedRender("/metrics", routes::metrics);
        this.findings = new SharedRender("/findings", routes::findings);
        this.connectionsPage = new SharedRender("/connections", routes::connections);
        this.renderers = new ThreadPoolExecutor(
                RENDERERS,
                RENDERERS,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(RENDER_QUEUE),
                runnable -> daemon(runnable, "tcpsight-agent-http-render"));
        this.loop = daemon(this::run, "tcpsight-agent-http");
    }

    /**
     * @param agentMeters bound to the same registry (the listeners, connect pacing)
     * @param access TLS, authentication, allowlist and redaction; {@link EndpointAccess#OPEN} for none
     * @param warn where a failure of the endpoint itself goes, once per kind
     */
    public static AgentHttpServer start(
            String host,
            int port,
            EndpointAccess access,
            ConnectionMonitor monitor,
            List<MeterBinder> agentMeters,
            Consumer<String> warn)
            throws IOException {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new TcpsightMeterBinder(monitor).bindTo(prometheus);
        for (MeterBinder meters : agentMeters) {
            meters.bindTo(prometheus);
        }
        int cap = connectionCap(openFileLimit());
        if (access.tls()) {
            cap = Math.min(cap, MAX_TLS_CONNECTIONS);
        }
        ServerSocketChannel server = ServerSocketChannel.open();
        Selector selector = Selector.open();
        SelectionKey acceptKey;
        try {
            // A backlog as deep as the connection cap: a burst of scrapers must not overflow the accept
            // queue, where a dropped SYN costs its client a 1 s retransmission (seen at a backlog of 64).
            server.bind(new InetSocketAddress(host, port), cap);
            server.configureBlocking(false);
            acceptKey = server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException failure) {
            selector.close();
            server.close();
            throw failure;
        }
        AgentHttpServer started = new AgentHttpServer(
                server, selector, new Routes(prometheus, monitor, access.redacted()), access, cap, warn);
        started.acceptKey = acceptKey;
        started.loop.start();
        return started;
    }

    /**
     * Connections the endpoint may hold: a sixteenth of the process's open-file limit, so that it
     * never takes the descriptors Kafka needs, between {@link #MIN_CONNECTIONS} and
     * {@link #MAX_CONNECTIONS}; the most when the limit is unknown or unlimited.
     */
    static int connectionCap(long openFileLimit) {
        if (openFileLimit <= 0) {
            return MAX_CONNECTIONS;
        }
        return (int) Math.max(MIN_CONNECTIONS, Math.min(MAX_CONNECTIONS, openFileLimit / 16));
    }

    /** The soft RLIMIT_NOFILE of this process, from /proc/self/limits; -1 when unknown or unlimited. */
    static long openFileLimit() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String soft =
                            line.substring("Max open files".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            // not Linux, or /proc hidden: the fixed cap
        }
        return -1;
    }

    int maxConnections() {
        return maxConnections;
    }

    public int port() {
        return server.socket().getLocalPort();
    }

    @Override
    public void close() {
        open = false;
        renderers.shutdownNow();
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
        warnOnce(
                kind,
                "tcpsight agent: the HTTP endpoint could not accept a connection (" + kind
                        + "); it pauses accepting and tries again, the port stays open");
    }

    /** One line per kind of problem, and at most 16 kinds: a hostile client cannot flood the broker's log. */
    private void warnOnce(String kind, String line) {
        if (failuresLogged.size() < 16 && failuresLogged.add(kind)) {
            warn.accept(line);
        }
    }

    private void accept() throws IOException {
        for (SocketChannel client = server.accept(); client != null; client = server.accept()) {
            if (connections >= maxConnections && !evictOldest()) {
                client.close(); // the cheapest refusal: no buffer, no key
                continue;
            }
            if (!access.allows(((InetSocketAddress) client.getRemoteAddress()).getAddress())) {
                client.close();
                warnOnce(
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
            boolean full = !exchange.head.hasRemaining() && exchange.head.capacity() == MAX_HEAD_BYTES;
            if (full || read == TlsSession.HEAD_FULL) {
                exchange.headDone();
                respond(key, Response.text(431, "request head over " + MAX_HEAD_BYTES + " bytes\n"));
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
        if (!access.authorized(parsed.authorization())) {
            respond(key, Response.unauthorized(access.challenge().orElse("")));
            return;
        }
        switch (parsed.path()) {
            case "/metrics":
                metrics.request(key, page -> page.whole);
                return;
            case "/findings":
                findings.request(key, page -> page.whole);
                return;
            case "/connections":
                int top = top(parsed.query());
                if (top < 0) {
                    respond(key, Response.TOP_NOT_ALLOWED);
                } else {
                    connectionsPage.request(key, page -> page.first(top));
                }
                return;
            default:
                respond(key, Response.NOT_FOUND);
        }
    }

    /**
     * One resource's render, shared: a request while the last render is fresh gets it at once,
     * requests meanwhile wait for one render, and a render that fails in any way (an Error too)
     * answers 500 to those waiting and leaves the next request to render again. The answers are
     * views of the one body, so a thousand clients that never read hold one copy between them.
     */
    private final class SharedRender {
        private final String resource;
        private final Supplier<Page> render;
        private Page page;
        private long renderedAt;
        private boolean rendering;
        private final List<SelectionKey> waiting = new ArrayList<>();
        private final List<Function<Page, Response>> answers = new ArrayList<>();

        SharedRender(String resource, Supplier<Page> render) {
            this.resource = resource;
            this.render = render;
        }

        /** On the selector thread. */
        void request(SelectionKey key, Function<Page, Response> answer) {
            if (page != null && System.nanoTime() - renderedAt < REUSE_NANOS) {
                respond(key, answer.apply(page));
                return;
            }
            waiting.add(key);
            answers.add(answer);
            if (rendering) {
                return;
            }
            rendering = true;
            try {
                renderers.execute(() -> {
                    Page rendered;
                    Throwable failed = null;
                    try {
                        rendered = render.get();
                    } catch (Throwable failure) {
                        rendered = Page.failed(failure);
                        failed = failure;
                    }
                    Page done = rendered;
                    Throwable failure = failed;
                    onSelector(() -> {
                        if (failure != null) {
                            String kind = resource + " " + failure.getClass().getSimpleName();
                            warnOnce(
                                    kind,
                                    "tcpsight agent: " + resource + " could not be rendered (" + failure
                                            + "); the request got a 500 and the next one renders again");
                        }
                        finished(done);
                    });
                });
            } catch (RejectedExecutionException busy) {
                finished(Page.of(Response.BUSY));
            }
        }

        private void finished(Page rendered) {
            rendering = false;
            if (rendered.whole.status == 200) {
                page = rendered;
                renderedAt = System.nanoTime();
            }
            for (int i = 0; i < waiting.size(); i++) {
                respond(
                        waiting.get(i),
                        rendered.whole.status == 200 ? answers.get(i).apply(rendered) : rendered.whole);
            }
            waiting.clear();
            answers.clear();
        }
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

    private void onSelector(Runnable task) {
        selectorTasks.add(task);
        selector.wakeup();
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

    private static void closeQuietly(SelectionKey key) {
        key.cancel();
        try {
            key.channel().close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }

    /** One connection's state: the head as it arrives, then the answer as it leaves. */
    private static final class Exchange {
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

    /** The three resources. Runs on a renderer thread; the body is bytes, never one String. */
    private static final class Routes {
        private final PrometheusMeterRegistry prometheus;
        private final ConnectionMonitor monitor;
        private final boolean redacted;

        Routes(PrometheusMeterRegistry prometheus, ConnectionMonitor monitor, boolean redacted) {
            this.prometheus = prometheus;
            this.monitor = monitor;
            this.redacted = redacted;
        }

        Page metrics() {
            ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
            try {
                prometheus.scrape(body);
            } catch (IOException unwritable) {
                return Page.failed(unwritable);
            }
            return Page.of(new Response(200, "text/plain; version=0.0.4; charset=utf-8", body.toByteArray()));
        }

        Page findings() {
            return Page.of(Response.json(FindingJson.array(monitor.board().current(), redacted)));
        }

        /** The worst {@link ConnectionJson#MAX_TOP} connections, rendered once; top=N answers with the first N. */
        Page connections() {
            List<String> objects = ConnectionJson.objects(monitor.worstConnections(ConnectionJson.MAX_TOP), redacted);
            ByteArrayOutputStream body = new ByteArrayOutputStream(1024 + 600 * objects.size());
            int[] ends = new int[objects.size()];
            body.write('[');
            for (int i = 0; i < objects.size(); i++) {
                if (i > 0) {
                    body.write(',');
                }
                byte[] object = objects.get(i).getBytes(StandardCharsets.UTF_8);
                body.write(object, 0, object.length);
                ends[i] = body.size();
            }
            body.write(']');
            return new Page(new Response(200, "application/json", body.toByteArray()), ends);
        }
    }

    /**
     * A render: the whole answer, and for a JSON array the end of each element, so that a request
     * for the first N is a view of the same bytes.
     */
    private static final class Page {
        private static final byte[] CLOSE = {']'};
        final Response whole;
        private final int[] ends;

        Page(Response whole, int[] ends) {
            this.whole = whole;
            this.ends = ends;
        }

        static Page of(Response whole) {
            return new Page(whole, null);
        }

        static Page failed(Throwable failure) {
            return of(Response.text(
                    500, "tcpsight could not answer: " + failure.getClass().getSimpleName() + "\n"));
        }

        Response first(int count) {
            if (ends == null || count >= ends.length) {
                return whole;
            }
            int length = count == 0 ? 1 : ends[count - 1];
            return new Response(whole.status, whole.type, whole.body, length, CLOSE);
        }
    }

    /** top=N from the query string; default 20; -1 when malformed or out of range. */
    static int top(String query) {
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith("top=")) {
                    try {
                        return ConnectionJson.top(URLDecoder.decode(pair.substring(4), StandardCharsets.UTF_8));
                    } catch (IllegalArgumentException malformed) {
                        return -1; // a stray % sign
                    }
                }
            }
        }
        return ConnectionJson.DEFAULT_TOP;
    }

    /** A whole answer: status line, headers and body, sent once and followed by close. */
    static final class Response {
        static final Response GET_ONLY = text(405, "GET only\n");
        static final Response BUSY = text(503, "busy; try again\n");
        static final Response BAD_REQUEST = text(400, "not an HTTP/1.x request line\n");
        static final Response NOT_FOUND = text(404, "not found; try /metrics, /findings or /connections?top=20\n");
        static final Response TOP_NOT_ALLOWED = text(400, ConnectionJson.TOP_NOT_ALLOWED);

        private final int status;
        private final String type;
        /** Shared between every answer that uses it: sent through read-only views, never copied. */
        private final byte[] body;

        private final int length;
        private final byte[] tail;
        /** Header lines beyond the usual ones, each ending in CRLF. */
        private final String extraHeaders;

        Response(int status, String type, byte[] body) {
            this(status, type, body, body.length, new byte[0]);
        }

        /** The first {@code length} bytes of a shared body, then {@code tail}. */
        Response(int status, String type, byte[] body, int length, byte[] tail) {
            this(status, type, body, length, tail, status == 405 ? "Allow: GET, HEAD\r\n" : "");
        }

        private Response(int status, String type, byte[] body, int length, byte[] tail, String extraHeaders) {
            this.status = status;
            this.type = type;
            this.body = body;
            this.length = length;
            this.tail = tail;
            this.extraHeaders = extraHeaders;
        }

        static Response unauthorized(String challenge) {
            byte[] body = "authorization required\n".getBytes(StandardCharsets.UTF_8);
            return new Response(
                    401,
                    "text/plain; charset=utf-8",
                    body,
                    body.length,
                    new byte[0],
                    "WWW-Authenticate: " + challenge + "\r\n");
        }

        static Response text(int status, String body) {
            return new Response(status, "text/plain; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
        }

        static Response json(String body) {
            return new Response(200, "application/json", body.getBytes(StandardCharsets.UTF_8));
        }

        int status() {
            return status;
        }

        ByteBuffer[] buffers(boolean headOnly) {
            byte[] head = ("HTTP/1.1 " + status + " " + reason() + "\r\nContent-Type: " + type + "\r\nContent-Length: "
                            + (length + tail.length) + "\r\n" + extraHeaders
                            + "Connection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            if (headOnly) {
                return new ByteBuffer[] {ByteBuffer.wrap(head)};
            }
            return new ByteBuffer[] {
                ByteBuffer.wrap(head),
                ByteBuffer.wrap(body, 0, length).asReadOnlyBuffer(),
                ByteBuffer.wrap(tail).asReadOnlyBuffer()
            };
        }

        private String reason() {
            switch (status) {
                case 200:
                    return "OK";
                case 400:
                    return "Bad Request";
                case 401:
                    return "Unauthorized";
                case 404:
                    return "Not Found";
                case 405:
                    return "Method Not Allowed";
                case 431:
                    return "Request Header Fields Too Large";
                case 503:
                    return "Service Unavailable";
                default:
                    return "Internal Server Error";
            }
        }
    }
}
