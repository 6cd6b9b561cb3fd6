package io.tcpsight.agent.internal.http;

import io.tcpsight.internal.diagnose.finding.FindingJson;
import io.tcpsight.internal.export.ConnectionJson;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

/** The three resources' bodies. Runs on a renderer thread; a body is bytes, never one String. */
final class Renders {
    private final MetricsText metrics;
    private final ConnectionMonitor monitor;
    private final boolean redacted;
    private final Function<ConnectionIdentity, String> brokerSettings;

    /** @param brokerSettings the broker's own settings that apply to a connection, a JSON object, or "" for none */
    Renders(
            MetricsText metrics,
            ConnectionMonitor monitor,
            boolean redacted,
            Function<ConnectionIdentity, String> brokerSettings) {
        this.metrics = metrics;
        this.monitor = monitor;
        this.redacted = redacted;
        this.brokerSettings = brokerSettings;
    }

    Page metrics() {
        ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
        try {
            metrics.writeTo(body);
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
        List<String> objects = ConnectionJson.objects(
                monitor.worstConnections(ConnectionJson.MAX_TOP), redacted, "brokerSettings", brokerSettings);
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
