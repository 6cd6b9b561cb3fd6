package io.tcpsight.agent.internal.http;

import io.tcpsight.internal.export.ConnectionJson;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Which answer a complete request gets: 401 without the credentials asked for, else the shared
 * render of /metrics, /findings or /connections (the first N of it), else 404.
 */
final class Routes implements HttpTransport.Handler {
    private final EndpointAccess access;
    private final SharedRender metrics;
    private final SharedRender findings;
    private final SharedRender connections;

    Routes(EndpointAccess access, SharedRender metrics, SharedRender findings, SharedRender connections) {
        this.access = access;
        this.metrics = metrics;
        this.findings = findings;
        this.connections = connections;
    }

    @Override
    public void handle(RequestHead.Parsed request, Reply reply) {
        if (!access.authorized(request.authorization())) {
            reply.send(Response.unauthorized(access.challenge().orElse("")));
            return;
        }
        switch (request.path()) {
            case "/metrics":
                metrics.request(reply, page -> page.whole);
                return;
            case "/findings":
                findings.request(reply, page -> page.whole);
                return;
            case "/connections":
                int top = top(request.query());
                if (top < 0) {
                    reply.send(Response.TOP_NOT_ALLOWED);
                } else {
                    connections.request(reply, page -> page.first(top));
                }
                return;
            default:
                reply.send(Response.NOT_FOUND);
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
}
