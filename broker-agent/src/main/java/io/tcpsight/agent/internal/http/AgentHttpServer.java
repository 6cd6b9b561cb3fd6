package io.tcpsight.agent.internal.http;

import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The agent's HTTP endpoint: GET /metrics (Prometheus text), /findings (JSON array in the shared
 * finding format), /connections?top=N (the worst connections with their TCP_INFO). Binds to
 * loopback unless configured otherwise.
 *
 * <p>Built so that no client can stall it for others, from parts with one job each: the
 * {@link HttpTransport} (one selector thread that never blocks, deadlines, eviction), TLS in
 * {@link TlsSession}, who may ask in {@link EndpointAccess}, the {@link Routes}, and one
 * {@link SharedRender} per resource on a small bounded renderer pool, so that what the endpoint
 * holds is bounded whatever its clients do. This class sizes and assembles them.
 */
public final class AgentHttpServer implements AutoCloseable {
    /** The most connections ever held; fewer where the process's open-file limit is low (see {@link #connectionCap}). */
    static final int MAX_CONNECTIONS = 1024;
    /** With TLS each connection holds two packet buffers (about 33 KB): fewer of them, for the same few MB. */
    static final int MAX_TLS_CONNECTIONS = 128;
    /** The fewest, however low the limit: a few scrapers and a curl. */
    static final int MIN_CONNECTIONS = 16;

    private static final int RENDERERS = 2;
    private static final int RENDER_QUEUE = 64;

    private final HttpTransport transport;
    private final ThreadPoolExecutor renderers;

    private AgentHttpServer(HttpTransport transport, ThreadPoolExecutor renderers) {
        this.transport = transport;
        this.renderers = renderers;
    }

    /**
     * @param access TLS, authentication, allowlist and redaction; {@link EndpointAccess#OPEN} for none
     * @param metrics the registry's text for /metrics
     * @param warn where a failure of the endpoint itself goes, once per kind
     */
    public static AgentHttpServer start(
            String host,
            int port,
            EndpointAccess access,
            MetricsText metrics,
            ConnectionMonitor monitor,
            Consumer<String> warn)
            throws IOException {
        return start(host, port, access, metrics, monitor, identity -> "", warn);
    }

    /**
     * The same, /connections showing with each connection the broker's own settings that apply to it
     * ({@code brokerSettings}: a JSON object's text, or "" for none).
     */
    public static AgentHttpServer start(
            String host,
            int port,
            EndpointAccess access,
            MetricsText metrics,
            ConnectionMonitor monitor,
            Function<ConnectionIdentity, String> brokerSettings,
            Consumer<String> warn)
            throws IOException {
        int cap = connectionCap(openFileLimit());
        if (access.tls()) {
            cap = Math.min(cap, MAX_TLS_CONNECTIONS);
        }
        EndpointWarnings warnings = new EndpointWarnings(warn);
        HttpTransport transport = HttpTransport.bind(host, port, access, cap, warnings);
        ThreadPoolExecutor renderers = new ThreadPoolExecutor(
                RENDERERS,
                RENDERERS,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(RENDER_QUEUE),
                runnable -> HttpTransport.daemon(runnable, "tcpsight-agent-http-render"));
        Renders renders = new Renders(metrics, monitor, access.redacted(), brokerSettings);
        transport.start(new Routes(
                access,
                new SharedRender("/metrics", renders::metrics, renderers, transport::onSelector, warnings),
                new SharedRender("/findings", renders::findings, renderers, transport::onSelector, warnings),
                new SharedRender("/connections", renders::connections, renderers, transport::onSelector, warnings)));
        return new AgentHttpServer(transport, renderers);
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
        return transport.maxConnections();
    }

    public int port() {
        return transport.port();
    }

    @Override
    public void close() {
        renderers.shutdownNow();
        transport.close();
    }
}
