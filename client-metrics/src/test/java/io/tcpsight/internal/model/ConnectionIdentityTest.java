package io.tcpsight.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An identity keeps its owner apart from its addresses: the connections of one client, once kept, hold one
 * owner, each with its own addresses, and read as before.
 */
class ConnectionIdentityTest {
    private static final InetSocketAddress BROKER = new InetSocketAddress("127.0.0.1", 9092);

    private static ConnectionIdentity named(int clientPort, String clientId) {
        return ConnectionIdentity.of(Role.BROKER, BROKER, new InetSocketAddress("10.0.0.2", clientPort))
                .withListener("PLAINTEXT")
                .withClientId(clientId)
                .withPrincipal("User:ANONYMOUS")
                .withClientSoftware("apache-kafka-java/4.1.0")
                .withFlow(BulkFlow.TO_CLIENT)
                .ownerKnownBy(OwnerKnownBy.HOOKS);
    }

    @Test
    void theConnectionsOfOneClientOnceKeptShareOneOwnerEachWithItsOwnAddresses() {
        ConnectionIdentity first = named(40_001, "orders-consumer").shared();
        ConnectionIdentity second = named(40_002, "orders-consumer").shared();
        ConnectionIdentity other = named(40_003, "payments-consumer").shared();

        assertTrue(first.sharesOwnerWith(second));
        assertFalse(first.sharesOwnerWith(other));
        assertEquals(40_001, first.remote().orElseThrow().getPort());
        assertEquals(40_002, second.remote().orElseThrow().getPort());
        assertEquals(Optional.of("orders-consumer"), second.clientId());
        assertEquals(Optional.of("User:ANONYMOUS"), second.principal());
        assertEquals(Optional.of("PLAINTEXT"), second.listener());
        assertEquals(Optional.of("apache-kafka-java/4.1.0"), second.clientSoftware());
        assertEquals(BulkFlow.TO_CLIENT, second.knownFlow());
        assertEquals(OwnerKnownBy.HOOKS, second.ownerKnownBy());
        assertEquals(Role.BROKER, second.role());
    }

    @Test
    void anIdentityKeptAgainIsTheSameObjectAndOnlyWhatIsKeptIsPooled() {
        ConnectionIdentity kept = named(40_011, "inventory-producer").shared();
        assertSame(kept, kept.shared(), "keeping it again changes nothing: a judgement under it stands");

        ConnectionIdentity notKept = named(40_012, "inventory-producer");
        assertFalse(notKept.sharesOwnerWith(kept), "a with-call's result holds its own owner until kept");
        assertTrue(notKept.shared().sharesOwnerWith(kept));
    }

    @Test
    void aChangedFieldMakesAnotherOwnerAndLeavesTheKeptOneAsItWas() {
        ConnectionIdentity kept = named(40_021, "audit-consumer").shared();
        ConnectionIdentity reauthenticated = kept.withPrincipal("User:audit").shared();

        assertFalse(reauthenticated.sharesOwnerWith(kept));
        assertEquals(Optional.of("User:ANONYMOUS"), kept.principal());
        assertEquals(Optional.of("User:audit"), reauthenticated.principal());
        assertEquals(kept.remote(), reauthenticated.remote());
    }

    /**
     * Every part of the owner tells owners apart, and what a kept identity reads is what it was kept with:
     * a pooled owner equal by fewer parts would hand a connection another client's node, listener,
     * software, flow or how its owner was known.
     */
    @Test
    void eachPartOfTheOwnerTellsOwnersApartAndAKeptIdentityReadsAsItWasKept() {
        ConnectionIdentity base = named(40_031, "billing-consumer");
        List<ConnectionIdentity> others = List.of(
                base.withNodeId("3"),
                base.withListener("SASL_SSL"),
                base.withClientSoftware("librdkafka/2.6.0"),
                base.withFlow(BulkFlow.TO_BROKER),
                base.ownerKnownBy(OwnerKnownBy.BYTE_COUNTS),
                base.withPrincipal("User:billing"),
                ConnectionIdentity.of(Role.CLIENT, BROKER, new InetSocketAddress("10.0.0.2", 40_031))
                        .withListener("PLAINTEXT")
                        .withClientId("billing-consumer")
                        .withPrincipal("User:ANONYMOUS")
                        .withClientSoftware("apache-kafka-java/4.1.0")
                        .withFlow(BulkFlow.TO_CLIENT)
                        .ownerKnownBy(OwnerKnownBy.HOOKS));
        ConnectionIdentity kept = base.shared();
        for (ConnectionIdentity other : others) {
            ConnectionIdentity otherKept = other.shared();
            assertFalse(otherKept.sharesOwnerWith(kept), other.toString());
            assertEquals(other, otherKept, "kept as it was: " + other);
        }
        assertEquals(base, kept);
        assertEquals(Optional.of(BROKER), kept.local(), "its local address kept beside the owner");
        assertEquals(Optional.of("3"), others.get(0).shared().nodeId());
        assertEquals(OwnerKnownBy.BYTE_COUNTS, others.get(4).shared().ownerKnownBy());
    }
}
