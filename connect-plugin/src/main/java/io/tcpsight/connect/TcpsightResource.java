package io.tcpsight.connect;

import io.tcpsight.diagnose.FindingJson;
import io.tcpsight.export.ConnectionJson;
import io.tcpsight.export.TcpsightJmx;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.BufferedOutputStream;

/** GET /tcpsight/findings, /tcpsight/connections?top=N and /tcpsight/metrics on the worker's REST server. */
@Path("/tcpsight")
public class TcpsightResource {
    private final WorkerObservation observation;

    TcpsightResource(WorkerObservation observation) {
        this.observation = observation;
    }

    @GET
    @Path("/findings")
    @Produces(MediaType.APPLICATION_JSON)
    public String findings() {
        return FindingJson.array(observation.monitor().board().current());
    }

    @GET
    @Path("/connections")
    @Produces(MediaType.APPLICATION_JSON)
    public Response connections(@QueryParam("top") String top) {
        int limit = ConnectionJson.top(top);
        if (limit < 0) {
            return Response.status(Response.Status.BAD_REQUEST)
                    .type(MediaType.TEXT_PLAIN)
                    .entity(ConnectionJson.TOP_NOT_ALLOWED)
                    .build();
        }
        return Response.ok(
                        ConnectionJson.array(TcpsightJmx.worst(
                                observation.monitor().registry().connections(), limit)),
                        MediaType.APPLICATION_JSON)
                .build();
    }

    @GET
    @Path("/metrics")
    @Produces("text/plain; version=0.0.4; charset=utf-8")
    public StreamingOutput metrics() {
        // Written as the registry walks its meters: at 10,000 connections the body is never one String.
        return out -> {
            BufferedOutputStream buffered = new BufferedOutputStream(out, 16 * 1024);
            observation.scrape(buffered);
            buffered.flush();
        };
    }
}
