package io.tcpsight.agent.http;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.diagnose.FindingJson;
import io.tcpsight.export.ConnectionJson;
import io.tcpsight.export.TcpsightJmx;
import io.tcpsight.export.TcpsightMeterBinder;
import io.tcpsight.monitor.ConnectionMonitor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The agent's HTTP endpoint: GET /metrics (Prometheus text), /findings (JSON array in the shared
 * finding format), /connections?top=N (the worst connections with their TCP_INFO). Binds to
 * loopback unless configured otherwise.
 *
 * <p>Built so that no client can stall it for others. One selector thread reads request heads and
 * writes responses without ever blocking, so a half-sent request (slowloris) or a client that
 * never reads costs a buffer, not a thread. Only a complete GET reaches the bounded renderer pool;
 * anything else gets a fixed answer at once (405, 404, 431, 503). Every connection has a deadline
 * for its head and one for its whole life, and each answer closes its connection. At most
 * {@link #MAX_CONNECTIONS} are open: past that, the oldest one still sending its head makes room.
 * Requests for /metrics that arrive together share one render and one body.
 */
public final class AgentHttpServer implements AutoCloseable {
    static final int MAX_CONNECTIONS = 1024;
    /** A scrape served to requests that arrive while it is this fresh: a flood costs one render. */
    static final long METRICS_REUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

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
    private final Queue<Runnable> selectorTasks = new ConcurrentLinkedQueue<>();
    private final Thread loop;
    private volatile boolean open = true;
    // Selector thread only:
    private int connections;
    private Response metrics;
    private long metricsRendered;
    private boolean metricsRendering;
    private long lastExpiry = System.nanoTime();
    private final List<SelectionKey> waitingForMetrics = new ArrayList<>();

    private AgentHttpServer(ServerSocketChannel server, Selector selector, Routes routes) {
        this.server = server;
        this.selector = selector;
        this.routes = routes;
        this.renderers = new ThreadPoolExecutor(
                RENDERERS,
                RENDERERS,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(RENDER_QUEUE),
                runnable -> daemon(runnable, "tcpsight-agent-http-render"));
        this.loop = daemon(this::run, "tcpsight-agent-http");
    }

    /** @param agentMeters bound to the same registry (the listeners, connect pacing) */
    public static AgentHttpServer start(String host, int port, ConnectionMonitor monitor, List<MeterBinder> agentMeters)
            throws IOException {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new TcpsightMeterBinder(monitor).bindTo(prometheus);
        for (MeterBinder meters : agentMeters) {
            meters.bindTo(prometheus);
        }
        ServerSocketChannel server = ServerSocketChannel.open();
        Selector selector = Selector.open();
        try {
            // A backlog as deep as the connection cap: a burst of scrapers must not overflow the accept
            // queue, where a dropped SYN costs its client a 1 s retransmission (seen at a backlog of 64).
            server.bind(new InetSocketAddress(host, port), MAX_CONNECTIONS);
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException failure) {
            selector.close();
            server.close();
            throw failure;
        }
        AgentHttpServer started = new AgentHttpServer(server, selector, new Routes(prometheus, monitor));
        started.loop.start();
        return started;
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
        try {
            if (key.isAcceptable()) {
                accept();
            } else if (key.isReadable()) {
                read(key);
            } else if (key.isWritable()) {
                write(key);
            }
        } catch (IOException | RuntimeException broken) {
            closeConnection(key);
        }
    }

    private void accept() throws IOException {
        for (SocketChannel client = server.accept(); client != null; client = server.accept()) {
            if (connections >= MAX_CONNECTIONS && !evictSlowestHead()) {
                client.close(); // the cheapest refusal: no buffer, no key
                continue;
            }
            client.configureBlocking(false);
            client.register(selector, SelectionKey.OP_READ, new Exchange(System.nanoTime()));
            connections++;
        }
    }

    private void read(SelectionKey key) throws IOException {
        Exchange exchange = (Exchange) key.attachment();
        if (!exchange.head.hasRemaining() && exchange.head.capacity() < MAX_HEAD_BYTES) {
            exchange.head = ByteBuffer.allocate(MAX_HEAD_BYTES).put(exchange.head.flip());
        }
        int read = ((SocketChannel) key.channel()).read(exchange.head);
        if (read < 0) {
            closeConnection(key);
            return;
        }
        RequestHead.Parsed parsed = RequestHead.parse(exchange.head);
        if (parsed == null) {
            if (!exchange.head.hasRemaining() && exchange.head.capacity() == MAX_HEAD_BYTES) {
                key.interestOps(0);
                respond(key, Response.text(431, "request head over " + MAX_HEAD_BYTES + " bytes\n"));
            }
            return;
        }
        key.interestOps(0);
        if (!parsed.method().equals("GET")) {
            respond(key, Response.GET_ONLY);
            return;
        }
        if (parsed.path().equals("/metrics")) {
            scrape(key);
            return;
        }
        try {
            renderers.execute(() -> {
                Response response = routes.answer(parsed.path(), parsed.query());
                onSelector(() -> respond(key, response));
            });
        } catch (RejectedExecutionException busy) {
            respond(key, Response.BUSY);
        }
    }

    /** On the selector thread: a fresh body at once, else one render for every request waiting on it. */
    private void scrape(SelectionKey key) {
        long now = System.nanoTime();
        if (metrics != null && now - metricsRendered < METRICS_REUSE_NANOS) {
            respond(key, metrics);
            return;
        }
        waitingForMetrics.add(key);
        if (metricsRendering) {
            return;
        }
        metricsRendering = true;
        try {
            renderers.execute(() -> {
                Response rendered = routes.answer("/metrics", null);
                onSelector(() -> {
                    if (rendered.status == 200) {
                        metrics = rendered;
                        metricsRendered = System.nanoTime();
                    }
                    answerWaitingForMetrics(rendered);
                });
            });
        } catch (RejectedExecutionException busy) {
            answerWaitingForMetrics(Response.BUSY);
        }
    }

    private void answerWaitingForMetrics(Response response) {
        metricsRendering = false;
        for (SelectionKey waiting : waitingForMetrics) {
            respond(waiting, response);
        }
        waitingForMetrics.clear();
    }

    private void write(SelectionKey key) throws IOException {
        Exchange exchange = (Exchange) key.attachment();
        ((SocketChannel) key.channel()).write(exchange.response);
        if (!exchange.response[exchange.response.length - 1].hasRemaining()) {
            closeConnection(key);
        }
    }

    /** On the selector thread: the answer goes out as the client reads it. */
    private void respond(SelectionKey key, Response response) {
        if (!key.isValid()) {
            return;
        }
        Exchange exchange = (Exchange) key.attachment();
        exchange.response = response.buffers();
        key.interestOps(SelectionKey.OP_WRITE);
    }

    private void onSelector(Runnable task) {
        selectorTasks.add(task);
        selector.wakeup();
    }

    /** Makes room by closing the connection that has been sending its head the longest; false when none is. */
    private boolean evictSlowestHead() {
        SelectionKey oldest = null;
        for (SelectionKey key : selector.keys()) {
            if (key.isValid() && key.attachment() instanceof Exchange && key.interestOps() == SelectionKey.OP_READ) {
                if (oldest == null
                        || ((Exchange) key.attachment()).started < ((Exchange) oldest.attachment()).started) {
                    oldest = key;
                }
            }
        }
        if (oldest != null) {
            closeConnection(oldest);
        }
        return oldest != null;
    }

    /** Closes connections whose head is late or whose whole exchange outlived its deadline. */
    private void expire(long now) {
        for (SelectionKey key : selector.keys()) {
            if (key.isValid() && key.attachment() instanceof Exchange) {
                Exchange exchange = (Exchange) key.attachment();
                // Only a connection still sending its head has interest in reading.
                boolean headLate =
                        key.interestOps() == SelectionKey.OP_READ && now - exchange.started > HEAD_TIMEOUT_NANOS;
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
        /** Small at first; grown once to MAX_HEAD_BYTES for a head that needs it. */
        ByteBuffer head = ByteBuffer.allocate(1024);
        /** Head and body; the body may be shared with other exchanges (a read-only view each). */
        ByteBuffer[] response;

        Exchange(long started) {
            this.started = started;
        }
    }

    /** The three resources. Runs on a renderer thread; the body is bytes, never one String. */
    private static final class Routes {
        private final PrometheusMeterRegistry prometheus;
        private final ConnectionMonitor monitor;

        Routes(PrometheusMeterRegistry prometheus, ConnectionMonitor monitor) {
            this.prometheus = prometheus;
            this.monitor = monitor;
        }

        Response answer(String path, String query) {
            try {
                switch (path) {
                    case "/metrics":
                        ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
                        prometheus.scrape(body);
                        return new Response(200, "text/plain; version=0.0.4; charset=utf-8", body.toByteArray());
                    case "/findings":
                        return Response.json(FindingJson.array(monitor.board().current()));
                    case "/connections":
                        int top = top(query);
                        if (top < 0) {
                            return Response.text(400, ConnectionJson.TOP_NOT_ALLOWED);
                        }
                        return Response.json(ConnectionJson.array(
                                TcpsightJmx.worst(monitor.registry().connections(), top)));
                    default:
                        return Response.text(404, "not found; try /metrics, /findings or /connections?top=20\n");
                }
            } catch (IOException | RuntimeException failure) {
                return Response.text(
                        500, "tcpsight could not answer: " + failure.getClass().getSimpleName() + "\n");
            }
        }
    }

    /** top=N from the query string; default 20; -1 when malformed or out of range. */
    static int top(String query) {
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith("top=")) {
                    return ConnectionJson.top(pair.substring(4));
                }
            }
        }
        return ConnectionJson.DEFAULT_TOP;
    }

    /** A whole answer: status line, headers and body, sent once and followed by close. */
    static final class Response {
        static final Response GET_ONLY = text(405, "GET only\n");
        static final Response BUSY = text(503, "busy; try again\n");

        private final int status;
        private final String type;
        private final byte[] body;

        Response(int status, String type, byte[] body) {
            this.status = status;
            this.type = type;
            this.body = body;
        }

        static Response text(int status, String body) {
            return new Response(status, "text/plain; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
        }

        static Response json(String body) {
            return new Response(200, "application/json", body.getBytes(StandardCharsets.UTF_8));
        }

        ByteBuffer[] buffers() {
            byte[] head = ("HTTP/1.1 " + status + " " + reason() + "\r\nContent-Type: " + type + "\r\nContent-Length: "
                            + body.length + "\r\n" + (status == 405 ? "Allow: GET\r\n" : "")
                            + "Connection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            return new ByteBuffer[] {
                ByteBuffer.wrap(head), ByteBuffer.wrap(body).asReadOnlyBuffer()
            };
        }

        private String reason() {
            switch (status) {
                case 200:
                    return "OK";
                case 400:
                    return "Bad Request";
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
