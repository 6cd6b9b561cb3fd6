package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.connect.internal.provider.ClusterAccess;
import io.tcpsight.connect.internal.provider.ClusterTuning;
import io.tcpsight.connect.internal.provider.ProvidedSettings;
import io.tcpsight.connect.internal.provider.SettingsUse;
import io.tcpsight.connect.internal.provider.TuningByCluster;
import io.tcpsight.connect.internal.settings.ConnectSettings;
import io.tcpsight.internal.tuning.BdpSettings;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigData;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.runtime.distributed.DistributedConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
            tunings.configure(
                    ConnectSettings.from(params, ConnectSettings.PROVIDER_KEYS),
                    ClusterAccess.fromParams(params),
                    params);
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
        badShared.configure(Map.of("tcpsight.rtt.refresh.ms", "soon", "bootstrap.servers", "127.0.0.1:1"));
        assertEquals(
                Map.of(),
                badShared.get("fetch", Set.of("fetch.max.bytes")).data(),
                "nothing applied, nothing handed out: the placeholder stays as written, never Kafka's default");
    }

    /** The param Kafka passes as config.providers.tcpsight.param.bootstrap.servers. */
    @Test
    void bootstrapServersAmongTheParamsAreMeasured() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ClusterTuning tuning = new ClusterTuning();
            TcpsightConfigProvider provider = new TcpsightConfigProvider(tuning);
            provider.configure(Map.of(
                    "bootstrap.servers",
                    "127.0.0.1:" + listener.getLocalPort(),
                    "tcpsight.target.throughput.mbit",
                    "200"));
            assertEquals(
                    Set.of("max.partition.fetch.bytes"),
                    provider.get("fetch", Set.of("max.partition.fetch.bytes"))
                            .data()
                            .keySet());
            assertTrue(tuning.lastRttMicros().isPresent(), "measured at the param's address");
        }
    }

    /**
     * One line says which cluster is measured: servers and protocol, never a secret, once however
     * many provider instances Kafka configures with the same params (it makes two at worker start).
     */
    @Test
    void theStartupLineNamesTheClusterOnceAndNoSecret() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Map<String, String> params = new HashMap<>();
            params.put("bootstrap.servers", "127.0.0.1:" + listener.getLocalPort());
            params.put("security.protocol", "SASL_SSL");
            params.put("sasl.mechanism", "PLAIN");
            params.put(
                    "sasl.jaas.config",
                    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"jaas-pw-42\";");
            params.put("ssl.truststore.password", "trust-pw-42");
            params.put("ssl.truststore.location", "/nonexistent/truststore.p12");
            params.put("tcpsight.rtt.probe.timeout.ms", "200");
            params.put("tcpsight.target.throughput.mbit", "200");
            ClusterTuning tuning = new ClusterTuning();
            String log = CapturedLog.during(() -> {
                new TcpsightConfigProvider(tuning).configure(params);
                new TcpsightConfigProvider(tuning).configure(params);
                // the listing fails (no truststore at that path): its line names why, and no secret either
                tuning.remeasure();
            });
            List<String> startup = CapturedLog.lines(log, "measure the cluster at");
            assertEquals(1, startup.size(), log);
            assertTrue(
                    startup.get(0)
                            .contains("127.0.0.1:" + listener.getLocalPort() + " (security.protocol SASL_SSL,"
                                    + " sasl.mechanism PLAIN; from config.providers.tcpsight.param.bootstrap.servers)"),
                    startup.get(0));
            assertTrue(startup.get(0).contains("for 200.0 Mbit/s"), startup.get(0));
            assertEquals(1, CapturedLog.lines(log, "cannot list the brokers").size(), log);
            assertFalse(log.contains("jaas-pw-42") || log.contains("trust-pw-42"), log);
        }
    }

    /**
     * No cluster from the params and no REST extension: one line names the missing param, and
     * nothing is handed out, so Kafka leaves the placeholder as written instead of resolving it to
     * defaults that would pass for measured values.
     */
    @Test
    void withoutAClusterItRefusesInOneLineAndHandsOutNothing() {
        ClusterTuning tuning = new ClusterTuning();
        TcpsightConfigProvider provider = new TcpsightConfigProvider(tuning);
        String log = CapturedLog.during(() -> {
            provider.configure(
                    Map.of("tcpsight.target.throughput.mbit", "200", "tcpsight.rtt.probe.timeout.ms", "300"));
            long start = System.nanoTime();
            assertEquals(
                    Map.of(), provider.get("fetch", Set.of("fetch.max.bytes")).data());
            long waitedMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(waitedMs >= 250 && waitedMs < 5000, "waited for the REST extension " + waitedMs + " ms");
            start = System.nanoTime();
            assertEquals(Map.of(), provider.get("produce").data());
            assertEquals(
                    Map.of(), provider.get("fetch", Set.of("max.poll.records")).data());
            assertTrue((System.nanoTime() - start) / 1_000_000 < 250, "refused at once after the first");
        });
        List<String> refusals = CapturedLog.lines(log, "refusing");
        assertEquals(1, refusals.size(), log);
        assertTrue(refusals.get(0).contains("config.providers.tcpsight.param.bootstrap.servers"), refusals.get(0));
        assertTrue(refusals.get(0).contains("WARN"), refusals.get(0));
        assertFalse(tuning.lastRttMicros().isPresent(), "nothing measured");
    }

    /** The REST extension, configured just after the herder starts, tells the worker's servers: a waiting placeholder gets them. */
    @Test
    void theRestExtensionsServersArriveWhileAPlaceholderWaits() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ClusterTuning tuning = new ClusterTuning();
            TcpsightConfigProvider provider = new TcpsightConfigProvider(tuning);
            provider.configure(Map.of("tcpsight.rtt.probe.timeout.ms", "3000"));
            Thread extension = new Thread(() -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException interrupted) {
                    return;
                }
                tuning.workerBootstrapServers("127.0.0.1:" + listener.getLocalPort());
            });
            extension.start();
            String log = CapturedLog.during(() -> assertEquals(
                    Set.of("fetch.max.bytes"),
                    provider.get("fetch", Set.of("fetch.max.bytes")).data().keySet()));
            extension.join();
            assertTrue(CapturedLog.lines(log, "refusing").isEmpty(), log);
            assertTrue(
                    CapturedLog.lines(log, "from the worker's bootstrap.servers, from the REST extension")
                                    .size()
                            == 1,
                    log);
        }
    }

    /** A target that is not a number: the line names key, value and range; nothing is handed out until it is fixed. */
    @Test
    void aNonNumericTargetIsNamedAndNothingIsHandedOut() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            TcpsightConfigProvider provider = new TcpsightConfigProvider(new ClusterTuning());
            String log = CapturedLog.during(() -> {
                provider.configure(Map.of(
                        "bootstrap.servers",
                        "127.0.0.1:" + listener.getLocalPort(),
                        "tcpsight.target.throughput.mbit",
                        "fast"));
                assertEquals(
                        Map.of(),
                        provider.get("fetch", Set.of("fetch.max.bytes")).data());
            });
            List<String> lines = CapturedLog.lines(log, "params were not applied");
            assertEquals(1, lines.size(), log);
            assertTrue(
                    lines.get(0).contains("tcpsight.target.throughput.mbit")
                            && lines.get(0).contains("fast")
                            && lines.get(0).contains("0.001"),
                    lines.get(0));
        }
    }

    @Test
    void anUnknownSecurityProtocolIsNamedAndNothingIsHandedOut() {
        TcpsightConfigProvider provider = new TcpsightConfigProvider(new ClusterTuning());
        String log = CapturedLog.during(() -> {
            provider.configure(Map.of("bootstrap.servers", "127.0.0.1:1", "security.protocol", "TLS"));
            assertEquals(
                    Map.of(), provider.get("fetch", Set.of("fetch.max.bytes")).data());
        });
        List<String> lines = CapturedLog.lines(log, "params were not applied");
        assertEquals(1, lines.size(), log);
        assertTrue(
                lines.get(0)
                        .contains("Invalid value TLS for configuration security.protocol: expected one of PLAINTEXT,"),
                lines.get(0));
    }

    /**
     * Kafka resolves the worker config's placeholders, the provider params among them, before
     * Connect configures the provider that serves connectors from those originals
     * (Plugins.newConfigProvider takes config.originalsWithPrefix): a ${file:...} param arrives
     * resolved. Checked on Connect's own DistributedConfig.
     */
    @Test
    void connectResolvesTheParamsWithTheWorkersOtherProviders(@TempDir Path directory) throws Exception {
        Path secrets = directory.resolve("tls.properties");
        Files.writeString(secrets, "password=from-the-file\n");
        Map<String, String> worker = new HashMap<>();
        worker.put("bootstrap.servers", "127.0.0.1:9092");
        worker.put("group.id", "g");
        worker.put("config.storage.topic", "c");
        worker.put("offset.storage.topic", "o");
        worker.put("status.storage.topic", "s");
        worker.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        worker.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        worker.put("config.providers", "file");
        worker.put("config.providers.file.class", "org.apache.kafka.common.config.provider.FileConfigProvider");
        worker.put("config.providers.tcpsight.param.ssl.truststore.password", "${file:" + secrets + ":password}");
        DistributedConfig config = new DistributedConfig(worker);
        assertEquals(
                "from-the-file",
                config.originalsWithPrefix("config.providers.tcpsight.param.").get("ssl.truststore.password"));
    }

    /** A param another provider was to resolve and did not: refused, naming the param, never measured with it. */
    @Test
    void aParamNoProviderResolvedIsRefusedByName() {
        ClusterTuning tuning = new ClusterTuning();
        TcpsightConfigProvider provider = new TcpsightConfigProvider(tuning);
        String log = CapturedLog.during(() -> {
            provider.configure(Map.of(
                    "bootstrap.servers", "127.0.0.1:1",
                    "security.protocol", "SSL",
                    "ssl.truststore.location", "${vault:kafka/ca:path}"));
            assertEquals(
                    Map.of(), provider.get("fetch", Set.of("fetch.max.bytes")).data());
        });
        List<String> refusals = CapturedLog.lines(log, "refusing");
        assertEquals(1, refusals.size(), log);
        assertTrue(refusals.get(0).contains("the param ssl.truststore.location is still a ${...} placeholder"), log);
        assertTrue(CapturedLog.lines(log, "measure the cluster at").isEmpty(), log);
    }
}
