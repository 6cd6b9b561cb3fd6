package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.connect.internal.provider.ClusterTuning;
import io.tcpsight.connect.internal.provider.ProvidedSettings;
import io.tcpsight.connect.internal.provider.SettingsUse;
import io.tcpsight.connect.internal.provider.TuningByCluster;
import io.tcpsight.connect.internal.settings.ConnectSettings;
import io.tcpsight.internal.tuning.BdpSettings;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigData;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class TcpsightConfigProviderTest {
    @Test
    void valuesComeFromAHandshakeMeasuredByTheKernel() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ClusterTuning tuning = new ClusterTuning();
            TcpsightConfigProvider provider = new TcpsightConfigProvider(tuning);
            provider.configure(Map.of("tcpsight.bootstrap.servers", "127.0.0.1:" + listener.getLocalPort()));
            ConfigData data = provider.get(
                    "fetch", Set.of("fetch.max.bytes", "max.partition.fetch.bytes", "receive.buffer.bytes"));
            // loopback: the BDP is tiny, so Kafka's defaults stand and the buffer autotunes
            assertEquals(
                    Map.of(
                            "fetch.max.bytes",
                            "52428800",
                            "max.partition.fetch.bytes",
                            "1048576",
                            "receive.buffer.bytes",
                            "-1"),
                    data.data());
            assertEquals(null, data.ttl(), "no TTL: it would restart the connector, not its tasks (KAFKA-17627)");
            assertTrue(
                    tuning.lastRttMicros().isPresent() && tuning.lastRttMicros().getAsLong() < 5_000,
                    String.valueOf(tuning.lastRttMicros()));
        }
    }

    /** One worker, two clusters: each alias is measured at its own address, the worker's cluster at its own. */
    @Test
    void eachDeclaredClusterIsMeasuredAtItsOwnAddress() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        try (ServerSocket far = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ClusterTuning own = new ClusterTuning();
            TuningByCluster tunings = new TuningByCluster(own);
            Map<String, String> params = Map.of(
                    "tcpsight.bootstrap.servers", "127.0.0.1:" + closedPort,
                    "tcpsight.rtt.probe.timeout.ms", "500",
                    "tcpsight.cluster.far.bootstrap.servers", "127.0.0.1:" + far.getLocalPort());
            tunings.configure(ConnectSettings.from(params, ConnectSettings.PROVIDER_KEYS), params);
            ClusterTuning farTuning = tunings.forPath("fetch/far");
            assertTrue(!farTuning.handOut().isFallback(), "the far alias was measured at its listener");
            assertTrue(farTuning.lastRttMicros().isPresent(), "a handshake RTT to the far listener");
            assertTrue(own.handOut().isFallback(), "the worker's own cluster is closed: its tuning falls back");
            assertTrue(tunings.forPath("fetch") == own);
        }
    }

    @Test
    void aFailedMeasurementHandsOutTheSafeFallback() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        ClusterTuning tuning = new ClusterTuning();
        TcpsightConfigProvider provider = new TcpsightConfigProvider(tuning);
        provider.configure(Map.of(
                "tcpsight.bootstrap.servers", "127.0.0.1:" + closedPort, "tcpsight.rtt.probe.timeout.ms", "500"));
        assertEquals(
                Map.of(
                        "fetch.max.bytes", "52428800",
                        "max.partition.fetch.bytes", "1048576",
                        "max.poll.records", "500",
                        "receive.buffer.bytes", "-1",
                        "send.buffer.bytes", "-1"),
                provider.get("fetch").data(),
                "Kafka's consumer defaults, with autotuned buffers");
        assertEquals(
                Map.of(
                        "batch.size", "16384",
                        "linger.ms", "5",
                        "max.request.size", "1048576",
                        "buffer.memory", "33554432",
                        "send.buffer.bytes", "-1"),
                provider.get("produce").data(),
                "Kafka's producer defaults (linger.ms as in 4.0), with an autotuned send buffer");
        assertTrue(tuning.handOut().isFallback());
    }

    @Test
    void aLongerPathGivesLargerFetches() {
        ProvidedSettings near = measuredAt(1_000);
        ProvidedSettings far = measuredAt(100_000);
        assertEquals("1048576", near.values().get("max.partition.fetch.bytes"));
        assertEquals(
                Long.toString(22L << 20), far.values().get("max.partition.fetch.bytes")); // 9 x 2.5 MB BDP, whole MiB
        assertEquals("500", near.values().get("max.poll.records"), "Kafka's default where its fetch sizes suffice");
        assertEquals(
                "51200", far.values().get("max.poll.records"), "a broker's whole 50 MiB response of 1 KiB records");
        assertEquals(102.4, far.driftFrom(near), 1e-9);
    }

    /** What the provider hands out for a path of this RTT at 200 Mbit/s, one partition, 1 KiB records. */
    private static ProvidedSettings measuredAt(long rttMicros) {
        return ProvidedSettings.measured(
                BdpSettings.recommend(new BdpSettings.Input(rttMicros, 25e6, 1, null, null, 1024)),
                rttMicros,
                Instant.now());
    }

    /** A producer's batches for the same paths: five requests in flight must carry two BDPs. */
    @Test
    void aLongerPathGivesLargerBatches() {
        ProvidedSettings near = measuredAt(1_000);
        ProvidedSettings far = measuredAt(100_000);
        assertEquals(
                Map.of(
                        "batch.size", "16384",
                        "linger.ms", "20",
                        "max.request.size", "1048576",
                        "buffer.memory", "33554432",
                        "send.buffer.bytes", "-1"),
                near.valuesFor(SettingsUse.PRODUCE),
                "a short path keeps Kafka's sizes");
        assertEquals(
                Map.of(
                        "batch.size",
                                "1048576", // 2 x 2.5 MB in flight over 5 requests of one partition, capped at 1 MiB
                        "linger.ms", "20",
                        "max.request.size", "1048576",
                        "buffer.memory", "33554432",
                        "send.buffer.bytes", "-1"),
                far.valuesFor(SettingsUse.PRODUCE));
        assertEquals(
                SettingsUse.FETCH.keys(),
                List.copyOf(far.valuesFor(SettingsUse.FETCH).keySet()),
                "the fetch path hands out no producer key");
    }

    @Test
    void theProducePathMeasuresTheSameClusters() throws Exception {
        try (ServerSocket far = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            TcpsightConfigProvider provider = new TcpsightConfigProvider(new ClusterTuning());
            provider.configure(Map.of(
                    "tcpsight.bootstrap.servers",
                    "127.0.0.1:" + far.getLocalPort(),
                    "tcpsight.cluster.far.bootstrap.servers",
                    "127.0.0.1:" + far.getLocalPort()));
            assertEquals(
                    Map.of("batch.size", "16384", "linger.ms", "20"),
                    provider.get("produce/far", Set.of("batch.size", "linger.ms"))
                            .data(),
                    "loopback: a measured path whose BDP fits Kafka's batches");
            assertEquals("16384", provider.get("produce").data().get("batch.size"));
            ConfigException fetchKey =
                    assertThrows(ConfigException.class, () -> provider.get("produce", Set.of("fetch.max.bytes")));
            assertTrue(fetchKey.getMessage().contains("batch.size"), fetchKey.getMessage());
        }
    }

    @Test
    void unknownPathsAndKeysAreClearErrors() {
        TcpsightConfigProvider provider = new TcpsightConfigProvider(new ClusterTuning());
        provider.configure(Map.of("tcpsight.bootstrap.servers", "127.0.0.1:1", "tcpsight.rtt.probe.timeout.ms", "100"));
        ConfigException path =
                assertThrows(ConfigException.class, () -> provider.get("sizes", Set.of("fetch.max.bytes")));
        assertTrue(
                path.getMessage().contains("'fetch' or 'produce' (the worker's cluster), or 'fetch/<alias>'"),
                path.getMessage());
        ConfigException alias =
                assertThrows(ConfigException.class, () -> provider.get("fetch/far", Set.of("fetch.max.bytes")));
        assertTrue(alias.getMessage().contains("tcpsight.cluster.<alias>.bootstrap.servers"), alias.getMessage());
        ConfigException key =
                assertThrows(ConfigException.class, () -> provider.get("fetch", Set.of("fetch.min.bytes")));
        assertTrue(
                key.getMessage().contains("fetch.min.bytes") && key.getMessage().contains("max.partition.fetch.bytes"),
                key.getMessage());
    }

    /**
     * A bad param never stops the worker: configure() says so in a line, and the rest is applied. A
     * cluster declared beside a bad one still resolves; before, one bad alias left every alias undeclared.
     */
    @Test
    void aBadParamCostsOnlyItsOwnPlaceholders() {
        TcpsightConfigProvider provider = new TcpsightConfigProvider(new ClusterTuning());
        provider.configure(Map.of(
                "tcpsight.cluster.near.bootstrap.servers", "127.0.0.1:1",
                "tcpsight.cluster.far.bootstrap.servers", "",
                "tcpsight.rtt.probe.timeout.ms", "100"));
        assertEquals(
                Set.of("fetch.max.bytes"),
                provider.get("fetch/near", Set.of("fetch.max.bytes")).data().keySet(),
                "the alias declared beside the bad one");
        ConfigException undeclared =
                assertThrows(ConfigException.class, () -> provider.get("fetch/far", Set.of("fetch.max.bytes")));
        assertTrue(
                undeclared.getMessage().contains("tcpsight.cluster.<alias>.bootstrap.servers"),
                undeclared.getMessage());
        TcpsightConfigProvider badShared = new TcpsightConfigProvider(new ClusterTuning());
        badShared.configure(Map.of("tcpsight.rtt.refresh.ms", "soon"));
        assertEquals(
                Map.of("fetch.max.bytes", "52428800"),
                badShared.get("fetch", Set.of("fetch.max.bytes")).data(),
                "nothing applied, nothing measured: Kafka's default");
    }
}
