package io.tcpsight.connect.internal.observation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.Finding;
import io.tcpsight.internal.sampling.SampledConnections;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.connect.health.ConnectClusterDetails;
import org.apache.kafka.connect.health.ConnectClusterState;
import org.apache.kafka.connect.health.ConnectorHealth;
import org.junit.jupiter.api.Test;

/**
 * Which paths judge a task client's settings: those to the brokers of the cluster it reaches, by
 * address. Two clusters on one port (MirrorMaker 2's usual setup: both on 9092) are told apart.
 */
class ConnectClientSettingsTest {
    private static final InetSocketAddress NEAR = new InetSocketAddress("10.0.0.2", 9092);
    private static final InetSocketAddress FAR = new InetSocketAddress("10.0.0.3", 9092);
    private static final InetSocketAddress OTHER = new InetSocketAddress("10.0.0.4", 9092);

    private final Map<String, Map<String, String>> connectors = Map.of(
            "mirror",
            Map.of(
                    "source.cluster.bootstrap.servers", "10.0.0.3:9092",
                    "target.cluster.bootstrap.servers", "10.0.0.2:9092",
                    "consumer.receive.buffer.bytes", "65536"),
            "half-mirror",
            Map.of("source.cluster.bootstrap.servers", "10.0.0.3:9092"),
            "elsewhere",
            Map.of("consumer.override.bootstrap.servers", "10.0.0.4:9092"),
            "hidden",
            Map.of("consumer.override.bootstrap.servers", "${file:/etc/kafka/other.properties:servers}"),
            "plain",
            Map.of("topics", "orders"));
    private final ConnectClientSettings settings = new ConnectClientSettings(Map.of(), () -> new Herder(connectors));
    private final ClientSettingsOnPaths onPaths =
            new ClientSettingsOnPaths(settings, NEAR::equals, TcpsightConfig.defaults());

    @Test
    void anMm2ClientIsJudgedOnItsOwnSidesBrokersOnlyWhereBothListenOnOnePort() {
        Predicate<InetSocketAddress> consumer = onPaths.clusterOf("far->near|mirror-0|replication-consumer");
        assertTrue(consumer.test(FAR));
        assertFalse(consumer.test(NEAR), "the near cluster on the same port");
        Predicate<InetSocketAddress> targetSide = onPaths.clusterOf("far->near|mirror-0|offset-syncs-target-producer");
        assertTrue(targetSide.test(NEAR));
        assertFalse(targetSide.test(FAR), "the far cluster on the same port");
        Predicate<InetSocketAddress> sourceSide = onPaths.clusterOf("far->near|mirror-0|offset-syncs-source-producer");
        assertTrue(sourceSide.test(FAR), "a source-side client that reads no replicated data");
        assertFalse(sourceSide.test(NEAR));
    }

    /** The replication consumer's buffer judged on its far cluster's 100 ms, not the near one's slower path. */
    @Test
    void anMm2ConsumersFindingQuotesItsOwnClustersPath() {
        List<Finding> findings = onPaths.judge(
                Set.of("far->near|mirror-0|replication-consumer"),
                List.of(SampledConnections.clientTo(FAR, 1, 100_000), SampledConnections.clientTo(NEAR, 2, 300_000)));
        assertFalse(findings.isEmpty(), "a 64 KiB buffer 100 ms away is judged");
        for (Finding finding : findings) {
            assertEquals(Optional.of(FAR), finding.connection().remote(), finding.toString());
        }
    }

    @Test
    void anMm2ClientWhoseSidesAddressIsNotGivenHasNoCertainPath() {
        Predicate<InetSocketAddress> target = onPaths.clusterOf("far->near|half-mirror-0|offset-syncs-target-producer");
        for (InetSocketAddress broker : List.of(NEAR, FAR, OTHER)) {
            assertFalse(target.test(broker), "never the worker's cluster in its stead: " + broker);
        }
    }

    @Test
    void aTaskClientWithAnOverrideIsJudgedOnThatClusterAndOneWithoutOnTheWorkers() {
        Predicate<InetSocketAddress> elsewhere = onPaths.clusterOf("connector-consumer-elsewhere-0");
        assertTrue(elsewhere.test(OTHER));
        assertFalse(elsewhere.test(NEAR), "the worker's cluster on the same port");
        Predicate<InetSocketAddress> plain = onPaths.clusterOf("connector-consumer-plain-1");
        assertTrue(plain.test(NEAR));
        assertFalse(plain.test(OTHER), "another cluster on the same port");
        // the override is the consumer's: the same connector's producer writes to the worker's cluster
        Predicate<InetSocketAddress> producer = onPaths.clusterOf("connector-producer-elsewhere-0");
        assertTrue(producer.test(NEAR));
        assertFalse(producer.test(OTHER));
    }

    @Test
    void anotherClusterWhoseAddressIsAPlaceholderHasNoCertainPath() {
        assertTrue(settings.otherCluster("connector-consumer-hidden-0").isPresent(), "another cluster");
        Predicate<InetSocketAddress> hidden = onPaths.clusterOf("connector-consumer-hidden-0");
        for (InetSocketAddress broker : List.of(NEAR, FAR, OTHER)) {
            assertFalse(hidden.test(broker), "never the worker's cluster in its stead: " + broker);
        }
    }

    /** The connectors' configs as the herder holds them. */
    private static final class Herder implements ConnectClusterState {
        private final Map<String, Map<String, String>> configs;

        Herder(Map<String, Map<String, String>> configs) {
            this.configs = configs;
        }

        @Override
        public Collection<String> connectors() {
            return configs.keySet();
        }

        @Override
        public Map<String, String> connectorConfig(String connName) {
            return configs.get(connName);
        }

        @Override
        public ConnectorHealth connectorHealth(String connName) {
            throw new UnsupportedOperationException("not read here");
        }

        @Override
        public ConnectClusterDetails clusterDetails() {
            throw new UnsupportedOperationException("not read here");
        }
    }
}
