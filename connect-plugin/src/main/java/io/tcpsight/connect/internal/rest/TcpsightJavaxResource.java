package io.tcpsight.connect.internal.rest;

import io.tcpsight.internal.export.ConnectionJson;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.StreamingOutput;

/** GET /tcpsight/findings, /tcpsight/connections?top=N and /tcpsight/metrics on a Connect 3.x worker (javax.ws.rs: the same endpoints as {@link TcpsightResource}). */
@Path("/tcpsight")
public class TcpsightJavaxResource {
    private final TcpsightEndpoints endpoints;

    public TcpsightJavaxResource(TcpsightEndpoints endpoints) {
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
