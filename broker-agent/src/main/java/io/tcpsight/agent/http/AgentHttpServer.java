package io.tcpsight.agent.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.diagnose.FindingJson;
import io.tcpsight.export.ConnectionJson;
import io.tcpsight.export.TcpsightJmx;
import io.tcpsight.export.TcpsightMeterBinder;
import io.tcpsight.monitor.ConnectionMonitor;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The agent's HTTP endpoint: GET /metrics (Prometheus text), /findings (JSON array in the shared
 * finding format), /connections?top=N (the worst connections with their TCP_INFO). One daemon
 * thread; binds to loopback unless configured otherwise.
 */
public final class AgentHttpServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;

    private AgentHttpServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** @param agentMeters bound to the same registry (the listeners, connect pacing) */
    public static AgentHttpServer start(String host, int port, ConnectionMonitor monitor, List<MeterBinder> agentMeters)
            throws IOException {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new TcpsightMeterBinder(monitor).bindTo(prometheus);
        for (MeterBinder meters : agentMeters) {
            meters.bindTo(prometheus);
        }
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
        ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "tcpsight-agent-http");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/metrics", exchange -> {
            if (getOnly(exchange)) {
                // Streamed in chunks as the registry writes it: at 10,000 connections the body is never one String.
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                exchange.sendResponseHeaders(200, 0);
                try (OutputStream out = new BufferedOutputStream(exchange.getResponseBody(), 16 * 1024)) {
                    prometheus.scrape(out);
                }
            }
        });
        server.createContext(
                "/findings",
                exchange -> respond(
                        exchange,
                        "application/json",
                        FindingJson.array(monitor.board().current())));
        server.createContext("/connections", exchange -> {
            int top = top(exchange.getRequestURI().getQuery());
            if (top < 0) {
                respond(
                        exchange,
                        400,
                        "text/plain",
                        "top must be a whole number from 1 to " + ConnectionJson.MAX_TOP + "\n");
                return;
            }
            respond(
                    exchange,
                    "application/json",
                    ConnectionJson.array(TcpsightJmx.worst(monitor.registry().connections(), top)));
        });
        server.start();
        return new AgentHttpServer(server, executor);
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

    private static void respond(HttpExchange exchange, String type, String body) throws IOException {
        respond(exchange, 200, type, body);
    }

    /** False after answering 405 to anything but GET. */
    private static boolean getOnly(HttpExchange exchange) throws IOException {
        if ("GET".equals(exchange.getRequestMethod())) {
            return true;
        }
        try (OutputStream out = exchange.getResponseBody()) {
            byte[] text = "GET only\n".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(405, text.length);
            out.write(text);
        }
        return false;
    }

    private static void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
        if (!getOnly(exchange)) {
            return;
        }
        try (OutputStream out = exchange.getResponseBody()) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.sendResponseHeaders(status, bytes.length);
            out.write(bytes);
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
