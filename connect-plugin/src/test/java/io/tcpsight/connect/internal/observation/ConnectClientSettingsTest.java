package io.tcpsight.connect.internal.observation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.sampling.SampledConnections;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
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
    private final ConnectClientSettings settings =
            new ConnectClientSettings(Map.of(), () -> new HerderConfigs(connectors));
    private final ClientSettingsOnPaths onPaths =
            new ClientSettingsOnPaths(settings, NEAR::equals, TcpsightConfig.defaults());

    /** MM2 clients by their side, task clients by their connector's override, else the worker's cluster. */
    @Test
    void eachClientIsJudgedOnItsOwnClustersBrokersOnlyWhereTwoListenOnOnePort() {
        assertJudgedOn("far->near|mirror-0|replication-consumer", FAR, NEAR);
        assertJudgedOn("far->near|mirror-0|offset-syncs-target-producer", NEAR, FAR);
        // a source-side client that reads no replicated data
        assertJudgedOn("far->near|mirror-0|offset-syncs-source-producer", FAR, NEAR);
        assertJudgedOn("connector-consumer-elsewhere-0", OTHER, NEAR);
        assertJudgedOn("connector-consumer-plain-1", NEAR, OTHER);
        // the override is the consumer's: the same connector's producer writes to the worker's cluster
        assertJudgedOn("connector-producer-elsewhere-0", NEAR, OTHER);
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

    /** Another cluster whose address is not known here: no path is certainly its, and never the worker's instead. */
    @Test
    void anotherClusterWithoutAKnownAddressHasNoCertainPath() {
        assertTrue(settings.otherCluster("connector-consumer-hidden-0").isPresent(), "another cluster");
        for (String clientId : List.of(
                "connector-consumer-hidden-0", // a placeholder
                "far->near|half-mirror-0|offset-syncs-target-producer")) { // an MM2 side not given
            Predicate<InetSocketAddress> onCluster = onPaths.clusterOf(clientId);
            for (InetSocketAddress broker : List.of(NEAR, FAR, OTHER)) {
                assertFalse(onCluster.test(broker), clientId + " never on " + broker);
            }
        }
    }

    /** A client's paths are judged on its cluster's broker, never on another cluster's on the same port. */
    private void assertJudgedOn(String clientId, InetSocketAddress itsBroker, InetSocketAddress samePortElsewhere) {
        Predicate<InetSocketAddress> onCluster = onPaths.clusterOf(clientId);
        assertTrue(onCluster.test(itsBroker), clientId + " on " + itsBroker);
        assertFalse(onCluster.test(samePortElsewhere), clientId + " not on " + samePortElsewhere + ", the same port");
    }
}
