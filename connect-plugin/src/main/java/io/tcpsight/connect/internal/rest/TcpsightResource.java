package io.tcpsight.connect.internal.rest;

import io.tcpsight.internal.export.ConnectionJson;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;

/** GET /tcpsight/findings, /tcpsight/connections?top=N and /tcpsight/metrics on a Connect 4.x worker (jakarta.ws.rs). */
@Path("/tcpsight")
public class TcpsightResource {
    private final TcpsightEndpoints endpoints;

    public TcpsightResource(TcpsightEndpoints endpoints) {
        this.endpoints = endpoints;
    }

    @GET
    @Path("/findings")
    @Produces(MediaType.APPLICATION_JSON)
    public String findings() {
        return endpoints.findings();
    }

    @GET
    @Path("/connections")
    @Produces(MediaType.APPLICATION_JSON)
    public Response connections(@QueryParam("top") String top) {
        String body = endpoints.connections(top);
        return body == null
                ? Response.status(Response.Status.BAD_REQUEST)
                        .type(MediaType.TEXT_PLAIN)
                        .entity(ConnectionJson.TOP_NOT_ALLOWED)
                        .build()
                : Response.ok(body, MediaType.APPLICATION_JSON).build();
    }

    @GET
    @Path("/metrics")
    @Produces(TcpsightEndpoints.METRICS_TYPE)
    public StreamingOutput metrics() {
        return endpoints::metrics;
    }
}
