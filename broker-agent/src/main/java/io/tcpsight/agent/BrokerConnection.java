package io.tcpsight.agent;

import io.tcpsight.sampling.TrackedConnection;
import java.util.Objects;

/**
 * A broker-side Kafka connection as the request hook knows it: the tracked socket, and the
 * principal and client information its identity was last read from, so that a request that
 * changes nothing costs two equals calls, not an update.
 */
final class BrokerConnection {
    final TrackedConnection tracked;
    private volatile Source lastSource;
    /** What the client's first full Fetch on this connection asked for; null until one came. */
    volatile FetchRequestSizes.Sizes fetchSizes;
    /** Its first Fetch (or ShareFetch) body was read: no more are. */
    volatile boolean bodiesRead;

    BrokerConnection(TrackedConnection tracked) {
        this.tracked = tracked;
    }

    /**
     * Whether the identity was read from an equal principal and client information (their own
     * equals: a SASL channel builds a new KafkaPrincipal for every request, equal to the last until
     * the connection authenticates again).
     */
    boolean readFrom(Object principal, Object clientInformation) {
        Source source = lastSource;
        return source != null
                && Objects.equals(source.principal, principal)
                && Objects.equals(source.clientInformation, clientInformation);
    }

    void read(Object principal, Object clientInformation) {
        lastSource = new Source(principal, clientInformation);
    }

    /** One immutable pair, so that a reader never sees one request's principal with another's client. */
    private static final class Source {
        final Object principal;
        final Object clientInformation;

        Source(Object principal, Object clientInformation) {
            this.principal = principal;
            this.clientInformation = clientInformation;
        }
    }
}
