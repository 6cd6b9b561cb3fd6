package io.tcpsight.agent;

import java.net.InetAddress;
import java.util.Optional;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * A request's context (Metadata, Fetch) as Kafka's network Processor builds it for a broker-side
 * connection: with the client's port, which it takes from the connection id
 * ("local:port-remote:port-..."). A forwarded request's context has none.
 */
final class ProcessorRequests {
    private ProcessorRequests() {}

    static RequestContext context(
            ApiKeys api,
            String connectionId,
            String clientId,
            KafkaPrincipal principal,
            ClientInformation client,
            String listener,
            SecurityProtocol protocol) {
        String remote = connectionId.split("-")[1];
        return new RequestContext(
                new RequestHeader(api, api.latestVersion(), clientId, 1),
                connectionId,
                InetAddress.getLoopbackAddress(),
                Optional.of(Integer.parseInt(remote.substring(remote.lastIndexOf(':') + 1))),
                principal,
                new ListenerName(listener),
                protocol,
                client,
                false);
    }
}
