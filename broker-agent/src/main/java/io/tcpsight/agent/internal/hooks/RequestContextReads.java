package io.tcpsight.agent.internal.hooks;

import java.util.List;

/**
 * The public fields of Kafka's {@code RequestContext} the agent reads by reflection, once per
 * class, when a request hook fires. Declared here so that the reference check covers them: a
 * RequestContext without one of the required fields loads unhooked, with one report, instead of
 * failing on every request.
 */
public final class RequestContextReads {
    public static final String HEADER = "header";
    public static final String PRINCIPAL = "principal";
    public static final String LISTENER_NAME = "listenerName";
    /** KIP-511 (Kafka 2.4 on); read when present. */
    public static final String CLIENT_INFORMATION = "clientInformation";
    /** Kafka 3.8 on; read when present. */
    public static final String CLIENT_PORT = "clientPort";

    public static final String CLIENT_ADDRESS = "clientAddress";
    /** The connection a request came on; a client telemetry push is joined to it. */
    public static final String CONNECTION_ID = "connectionId";

    /** The fields without which no request can be named. */
    static final List<String> REQUIRED = List.of(HEADER, PRINCIPAL, LISTENER_NAME);

    private RequestContextReads() {}
}
