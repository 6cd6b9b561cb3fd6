package io.tcpsight.agent.internal.http;

import java.io.IOException;
import java.io.OutputStream;

/** The Prometheus text the endpoint serves at /metrics; the registry behind it is built by the agent. */
@FunctionalInterface
public interface MetricsText {
    void writeTo(OutputStream out) throws IOException;
}
