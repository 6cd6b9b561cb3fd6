package io.tcpsight.connect.internal.observation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.health.ConnectClusterState;
import org.junit.jupiter.api.Test;

/**
 * The ports ConnectorClusters takes from connector configs. The herder's view is given as the
 * connectors' configs (the REST extension's {@link ConnectClusterState}); MirrorMakerLabIT proves
 * the same against a real worker and a far cluster.
 */
class ConnectorClustersTest {
    @Test
    void everyBootstrapKeyOfAConnectorCountsAndPlaceholdersDoNot() {
        Map<String, String> mirror = new LinkedHashMap<>();
        mirror.put("connector.class", "org.apache.kafka.connect.mirror.MirrorSourceConnector");
        mirror.put("source.cluster.bootstrap.servers", "far-1:9192, far-2:9194,[fd00::3]:9196");
        mirror.put("target.cluster.bootstrap.servers", "${file:/etc/kafka/near.properties:servers}");
        mirror.put("consumer.override.bootstrap.servers", "SASL_SSL://other:9292");
        mirror.put("bootstrap.servers.note", "not-a-bootstrap-key:1");
        mirror.put("topics", "orders");

        assertEquals(Set.of(9192, 9194, 9196, 9292), ConnectorClusters.bootstrapPorts(mirror));
        assertEquals(Set.of(), ConnectorClusters.bootstrapPorts(null));
        assertEquals(Set.of(), ConnectorClusters.bootstrapPorts(Map.of("bootstrap.servers", "no-port")));
    }

    @Test
    void aNewConnectorIsReadAtOnceAndADeletedOneIsDropped() {
        HerderConfigs herder = new HerderConfigs();
        ConnectorClusters clusters = new ConnectorClusters(() -> herder);
        assertEquals(Set.of(), clusters.ports(), "nothing before the first read");

        herder.configs.put("mm2", Map.of("source.cluster.bootstrap.servers", "far:9192"));
        clusters.refreshIfStale();
        assertEquals(Set.of(9192), clusters.ports());

        herder.configs.put("sink", Map.of("consumer.override.bootstrap.servers", "other:9292"));
        clusters.refreshIfStale();
        assertEquals(Set.of(9192, 9292), clusters.ports(), "a new connector is read without waiting 30 s");

        herder.configs.remove("mm2");
        clusters.refreshIfStale();
        assertEquals(Set.of(9292), clusters.ports());
    }

    @Test
    void aConnectorDeletedBetweenTheListingAndItsReadIsSkipped() {
        HerderConfigs herder = new HerderConfigs();
        herder.configs.put("sink", Map.of("consumer.override.bootstrap.servers", "other:9292"));
        herder.listedButGone = "mm2";
        ConnectorClusters clusters = new ConnectorClusters(() -> herder);
        clusters.refreshIfStale();
        assertEquals(Set.of(9292), clusters.ports());
    }

    @Test
    void beforeTheRestExtensionRegistersThereIsNothingToRead() {
        ConnectorClusters clusters = new ConnectorClusters(() -> null);
        clusters.refreshIfStale();
        assertEquals(Set.of(), clusters.ports());
    }
}
