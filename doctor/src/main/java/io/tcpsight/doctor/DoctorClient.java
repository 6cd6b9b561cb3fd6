package io.tcpsight.doctor;

import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ClientLibrary;
import io.tcpsight.internal.model.ConnectionIdentity;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The client the doctor speaks for: the client.id of the config it judges, the library that
 * client runs, which decides how a remedy spells each setting (librdkafka's
 * socket.receive.buffer.bytes where Java's is receive.buffer.bytes), and the way its bulk data
 * flows: fetch responses to a consumer, produce requests from a producer.
 */
final class DoctorClient {
    private final String clientId;
    private final ClientLibrary library;
    private final BulkFlow flow;

    private DoctorClient(String clientId, ClientLibrary library, BulkFlow flow) {
        this.clientId = clientId;
        this.library = library;
        this.flow = flow;
    }

    /** A consumer's config, as the doctor judged every config before it judged producers. */
    static DoctorClient of(String clientId, ClientLibrary library) {
        return new DoctorClient(clientId, library, BulkFlow.TO_CLIENT);
    }

    static DoctorClient of(String clientId, ClientLibrary library, ClientRole role) {
        return new DoctorClient(clientId, library, role.flow());
    }

    /** A library by the name {@code --client-library} takes; empty for a name no library has. */
    static ClientLibrary library(String name) {
        String wanted = name.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(ClientLibrary.values())
                .filter(library ->
                        library != ClientLibrary.UNKNOWN && library.label().equals(wanted))
                .findFirst()
                .orElse(ClientLibrary.UNKNOWN);
    }

    /** The names {@code --client-library} allows, for its error and help. */
    static String libraryNames() {
        return Arrays.stream(ClientLibrary.values())
                .filter(library -> library != ClientLibrary.UNKNOWN)
                .map(ClientLibrary::label)
                .collect(Collectors.joining(", "));
    }

    /** {@code base} named for this client: its client.id, its library where it is not Java, and its bulk data flowing as its kind sends it. */
    ConnectionIdentity named(ConnectionIdentity base) {
        ConnectionIdentity identity = base.withClientId(clientId).withFlow(flow);
        return library == ClientLibrary.JAVA ? identity : identity.withClientSoftware(library.label());
    }
}
