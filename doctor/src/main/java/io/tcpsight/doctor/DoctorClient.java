package io.tcpsight.doctor;

import io.tcpsight.internal.model.ClientLibrary;
import io.tcpsight.internal.model.ConnectionIdentity;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The client the doctor speaks for: the client.id of the config it judges, and the library that
 * client runs, which decides how a remedy spells each setting (librdkafka's
 * socket.receive.buffer.bytes where Java's is receive.buffer.bytes).
 */
final class DoctorClient {
    private final String clientId;
    private final ClientLibrary library;

    private DoctorClient(String clientId, ClientLibrary library) {
        this.clientId = clientId;
        this.library = library;
    }

    static DoctorClient of(String clientId, ClientLibrary library) {
        return new DoctorClient(clientId, library);
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

    /** {@code base} named for this client: its client.id, and its library where it is not Java. */
    ConnectionIdentity named(ConnectionIdentity base) {
        ConnectionIdentity identity = base.withClientId(clientId);
        return library == ClientLibrary.JAVA ? identity : identity.withClientSoftware(library.label());
    }
}
