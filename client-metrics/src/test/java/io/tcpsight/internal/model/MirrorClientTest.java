package io.tcpsight.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** MirrorMaker 2's client.ids (MirrorConnectorConfig.addClientId), and ids that only look like them. */
class MirrorClientTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = ';',
            value = {
                // client.id; kind; connector; role; cluster it talks to; connector key; mm2.properties key
                "far->near|mm2-far|replication-consumer; MIRROR_CONSUMER; mm2-far; replication-consumer; far;"
                        + " source.consumer.receive.buffer.bytes; far.consumer.receive.buffer.bytes",
                // a task's clients carry the task's name; the connector's admins the connector's
                "far->near|mm2-far-0|replication-consumer; MIRROR_CONSUMER; mm2-far; replication-consumer; far;"
                        + " source.consumer.receive.buffer.bytes; far.consumer.receive.buffer.bytes",
                "far->near|mm2-far-12|offset-syncs-source-producer; MIRROR_PRODUCER; mm2-far; offset-syncs-source-producer;"
                        + " far; source.producer.receive.buffer.bytes; far.producer.receive.buffer.bytes",
                "far->near|mm2-far-2|replication-target-admin; MIRROR_ADMIN; mm2-far-2; replication-target-admin; near;"
                        + " target.admin.receive.buffer.bytes; near.admin.receive.buffer.bytes",
                "far->near|mm2-far|offset-syncs-source-producer; MIRROR_PRODUCER; mm2-far; offset-syncs-source-producer;"
                        + " far; source.producer.receive.buffer.bytes; far.producer.receive.buffer.bytes",
                "far->near|mm2-far|replication-target-admin; MIRROR_ADMIN; mm2-far; replication-target-admin; near;"
                        + " target.admin.receive.buffer.bytes; near.admin.receive.buffer.bytes",
                "eu->us|MirrorHeartbeatConnector|heartbeats-target-admin; MIRROR_ADMIN; MirrorHeartbeatConnector;"
                        + " heartbeats-target-admin; us; target.admin.receive.buffer.bytes; us.admin.receive.buffer.bytes",
                // a user's client.id goes first, and may hold the separator itself
                "team|a|b|eu->us|MirrorSourceConnector|replication-consumer; MIRROR_CONSUMER; MirrorSourceConnector;"
                        + " replication-consumer; eu; source.consumer.receive.buffer.bytes; eu.consumer.receive.buffer.bytes",
            })
    void namesTheClustersRoleAndKeys(
            String clientId,
            ClientKind kind,
            String connector,
            String role,
            String cluster,
            String connectorKey,
            String dedicatedKey) {
        MirrorClient client = MirrorClient.fromClientId(clientId).orElseThrow();
        assertEquals(kind, ClientKind.fromClientId(clientId));
        assertEquals(connector, client.connector());
        assertEquals(role, client.role());
        assertEquals(cluster, client.clusterAlias());
        assertEquals(connectorKey, client.connectorKey("receive.buffer.bytes"));
        assertEquals(dedicatedKey, client.dedicatedKey("receive.buffer.bytes"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = ';',
            value = {
                // of MM2's consumers only the replication consumer reads bulk data
                "far->near|mm2-far-0|replication-consumer; TO_CLIENT",
                "far->near|mm2-far-0|offset-syncs-source-consumer; NONE",
                "far->near|mm2-far-checkpoint-0|checkpoints-target-consumer; NONE",
                "far->near|mm2-far-0|offset-syncs-source-producer; NONE",
                "far->near|mm2-far|replication-source-admin; NONE",
                // anyone else's by the kind
                "connector-consumer-sink-0; TO_CLIENT",
                "connector-producer-source-0; TO_BROKER",
            })
    void aClientsFlowFollowsItsMirrorRoleBeforeItsKind(String clientId, BulkFlow flow) {
        assertEquals(flow, BulkFlow.forClient(clientId, ClientKind.fromClientId(clientId)));
        assertEquals(
                flow,
                ConnectionIdentity.of(Role.CLIENT, null, null)
                        .withClientId(clientId)
                        .bulkFlow());
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(
            strings = {
                "connector-consumer-mm2-0", // Connect's framework producer and consumers are Connect's, not MM2's
                "far->near|mm2",
                "far->near|mm2|replication",
                "far-near|mm2|replication-consumer",
                "a->b|c|Replication-Consumer",
                ""
            })
    void otherClientIdsAreNotMirrorClients(String clientId) {
        assertTrue(MirrorClient.fromClientId(clientId).isEmpty(), clientId);
        assertTrue(!ClientKind.fromClientId(clientId).isMirror(), clientId);
    }
}
