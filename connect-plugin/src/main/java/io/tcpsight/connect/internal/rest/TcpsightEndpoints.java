package io.tcpsight.connect.internal.rest;

import io.tcpsight.connect.internal.observation.WorkerObservation;
import io.tcpsight.internal.diagnose.finding.FindingJson;
import io.tcpsight.internal.export.ConnectionJson;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * What /tcpsight/* answers, without JAX-RS: Connect 3.x serves it through javax.ws.rs
 * ({@link TcpsightJavaxResource}), 4.x through jakarta.ws.rs ({@link TcpsightResource}); each is
 * a thin annotated shell over this.
 */
public final class TcpsightEndpoints {
    static final String METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final WorkerObservation observation;
    /** tcpsight.rest.redact: no principal or address in the JSON answers. */
    private final boolean redacted;

    public TcpsightEndpoints(WorkerObservation observation, boolean redacted) {
        this.observation = observation;
        this.redacted = redacted;
    }

    String findings() {
        return FindingJson.array(observation.monitor().board().current(), redacted);
    }

    /** The worst connections as JSON, or null when {@code top} is not an allowed count ({@link ConnectionJson#TOP_NOT_ALLOWED}). */
    String connections(String top) {
        int limit = ConnectionJson.top(top);
        if (limit < 0) {
            return null;
        }
        return ConnectionJson.array(observation.monitor().worstConnections(limit), redacted);
    }

    /** Written as the registry walks its meters: at 10,000 connections the body is never one String. */
    void metrics(OutputStream out) throws IOException {
        BufferedOutputStream buffered = new BufferedOutputStream(out, 16 * 1024);
        observation.scrape(buffered);
        buffered.flush();
    }
}
