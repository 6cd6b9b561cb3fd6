package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.tcpsight.internal.tuning.BdpSettings;
import io.tcpsight.lab.ClientConfigDump;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabConnectWorker;
import io.tcpsight.lab.LabTls;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The config provider in a worker configured with docs/kubernetes/strimzi/kafka-connect.yaml's
 * spec.config, read from the recipe, beside what Strimzi writes for spec.tls: no REST extension (Strimzi drops
 * rest.* keys), the worker's cluster and its TLS trust among the provider's params, a broker whose
 * listener speaks TLS without client certificates (Strimzi's internal TLS listener), 100 ms across
 * the kernel delay line.
 */
class ConfigProviderParamsLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final Pattern RTT_LINE =
            Pattern.compile("tcpsight: RTT to (\\S+) is [0-9.]+ ms \\((\\d+) us, the slowest of (\\d+) brokers?\\)");
    private static final Path RECIPE = Path.of("..", "docs", "kubernetes", "strimzi", "kafka-connect.yaml");
    private static final String BOOTSTRAP_PARAM = "config.providers.tcpsight.param.bootstrap.servers";
    private static final String TRUSTSTORE_PARAM = "config.providers.tcpsight.param.ssl.truststore.location";
    private static final String[] FETCH_KEYS = {
        "fetch.max.bytes", "max.partition.fetch.bytes", "max.poll.records", "receive.buffer.bytes"
    };
    private static final double TARGET_MBIT = 200;

    /**
     * The provider lists the cluster's brokers over TLS with the params' trust settings, measures
     * the path to each, and the task's consumer is built with the sizes BdpSettings gives for the
     * RTT it measured, which the line allows: not Kafka's defaults.
     */
    @Test
    void aWorkerConfiguredAsTheStrimziRecipeGetsSizesForItsMeasuredTlsPath() throws Exception {
        KernelLab lab = tlsLab();
        LabTls tls = LabTls.forBroker(lab.serverAddress(), "provider-tls");
        KafkaBroker broker =
                KafkaBroker.inLab(lab).shortLivedJvm().serverTls(tls).start();
        lab.takeIdleLine();
        LabTopics.create(broker, "orders", 1);
        try (LabConnectWorker worker =
                LabConnectWorker.startShortLived(lab, broker, recipeWorker(broker, tls, true), null)) {
            worker.put("/connectors/tls-sink/config", adaptedSink(worker, "tls-sink"));
            worker.awaitRunning("tls-sink", 1, Duration.ofSeconds(90));
            ClientConfigDump consumer = LabAwait.await("the sink task's consumer config in the worker log")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> ClientConfigDump.latest(
                                    worker.process().output(), "Consumer", "connector-consumer-tls-sink-0")
                            .orElse(null));
            String log = worker.process().output();

            List<String> startup = lines(log, "measure the cluster at");
            assertEquals(1, startup.size(), "one line says which cluster, however many instances Kafka made:\n" + log);
            assertTrue(
                    startup.get(0)
                            .contains(broker.bootstrapServers() + " (security.protocol SSL; from " + BOOTSTRAP_PARAM),
                    startup.get(0));
            assertEquals(List.of(), lines(log, "cannot list the brokers"), "the params' TLS trust reached the cluster");
            assertEquals(List.of(), lines(log, "refusing"));

            Matcher rtt = RTT_LINE.matcher(log);
            assertTrue(rtt.find(), "the provider's measurement line:\n" + log);
            long rttMicros = Long.parseLong(rtt.group(2));
            assertEquals(broker.bootstrapServers(), rtt.group(1));
            assertEquals("1", rtt.group(3), "the one broker the cluster lists");
            lab.idleLine().assertQuoted(rttMicros / 1000.0, "the config provider");

            BdpSettings.Recommendation expected = BdpSettings.recommend(
                    new BdpSettings.Input(rttMicros, TARGET_MBIT * 1e6 / 8, 1, null, null, 1024).fetchingFrom(1));
            Map<String, String> forThePath = new LinkedHashMap<>();
            forThePath.put("fetch.max.bytes", Long.toString(expected.fetchMaxBytes()));
            forThePath.put("max.partition.fetch.bytes", Long.toString(expected.maxPartitionFetchBytes()));
            forThePath.put("max.poll.records", Integer.toString(expected.maxPollRecords()));
            forThePath.put("receive.buffer.bytes", Integer.toString(expected.receiveBufferBytes()));
            Map<String, String> built = consumer.values(FETCH_KEYS);
            System.out.printf(
                    "provider over TLS, no REST extension: RTT %.3f ms measured; the task's consumer was built with %s%n",
                    rttMicros / 1000.0, built);
            assertEquals(forThePath, built, "BdpSettings for the measured RTT at " + TARGET_MBIT + " Mbit/s");
            assertNotEquals(
                    Long.toString(BdpSettings.MAX_PARTITION_FETCH_BYTES_DEFAULT),
                    built.get("max.partition.fetch.bytes"),
                    "a 100 ms path at 200 Mbit/s needs more than Kafka's default");
        }
    }

    /**
     * The same worker without the bootstrap param knows no cluster: one line names the missing
     * param, and nothing is handed out. Connect validates a connector's client overrides with its
     * placeholders resolved, so a connector that asks for ${tcpsight:fetch:...} is refused at
     * creation, naming the placeholder it got, rather than created to run with Kafka's defaults as
     * if they had been measured. The worker runs on and takes other connectors.
     */
    @Test
    void aWorkerWithoutTheBootstrapParamRefusesInOneLine() throws Exception {
        KernelLab lab = tlsLab();
        LabTls tls = LabTls.forBroker(lab.serverAddress(), "provider-refusal");
        KafkaBroker broker =
                KafkaBroker.inLab(lab).shortLivedJvm().serverTls(tls).start();
        LabTopics.create(broker, "orders", 1);
        try (LabConnectWorker worker =
                LabConnectWorker.startShortLived(lab, broker, recipeWorker(broker, tls, false), null)) {
            IOException refused = assertThrows(
                    IOException.class,
                    () -> worker.put("/connectors/unmeasured-sink/config", adaptedSink(worker, "unmeasured-sink")));
            System.out.println("a connector asking for the unmeasured values: " + refused.getMessage());
            assertTrue(
                    refused.getMessage().contains("Invalid value ${tcpsight:fetch:"),
                    "the connector is refused naming the placeholder it got: " + refused.getMessage());
            String log = worker.process().output();
            List<String> refusals = lines(log, "refusing");
            assertEquals(1, refusals.size(), log);
            assertTrue(refusals.get(0).contains("WARN") && refusals.get(0).contains(BOOTSTRAP_PARAM), refusals.get(0));
            System.out.println("the provider's line: " + refusals.get(0));
            assertEquals(List.of(), lines(log, "measure the cluster at"), "no cluster, no claim to measure one");
            assertFalse(
                    ClientConfigDump.latest(log, "Consumer", "connector-consumer-unmeasured-sink-0")
                            .isPresent(),
                    "no consumer was built with values nobody measured");

            Map<String, String> plain = adaptedSink(worker, "plain-sink");
            plain.keySet().removeIf(key -> key.startsWith("consumer.override."));
            worker.put("/connectors/plain-sink/config", plain);
            worker.awaitRunning("plain-sink", 1, Duration.ofSeconds(90));
            assertEquals(1, lines(worker.process().output(), "refusing").size(), "still the one line");
        }
    }

    private static KernelLab tlsLab() throws Exception {
        return LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(100)).rateMbit(200))
                .clientInNamespace());
    }

    /**
     * A Strimzi worker's config: what the operator writes for spec.bootstrapServers and spec.tls
     * (the worker's own clients over TLS, its providers after the user's), then the recipe's own
     * spec.config, read from docs/kubernetes/strimzi/kafka-connect.yaml, with two values moved
     * into the lab: the bootstrap servers to the lab's broker, and the mounted ca.crt of the
     * recipe's trusted certificate to the broker's PEM certificate. No REST extension: Strimzi
     * drops rest.* keys.
     */
    private static Map<String, String> recipeWorker(KafkaBroker broker, LabTls tls, boolean withBootstrapParam)
            throws Exception {
        JsonNode spec = new YAMLMapper().readTree(RECIPE.toFile()).path("spec");
        String mountedCa = "/opt/kafka/connect-certs/"
                + spec.path("tls")
                        .path("trustedCertificates")
                        .path(0)
                        .path("secretName")
                        .asText() + "/ca.crt";
        Map<String, String> config = new LinkedHashMap<>();
        for (String prefix : new String[] {"", "producer.", "consumer.", "admin."}) {
            broker.adminSecurity().forEach((key, value) -> config.put(prefix + key, value));
        }
        spec.path("config")
                .fields()
                .forEachRemaining(
                        entry -> config.put(entry.getKey(), entry.getValue().asText()));
        config.keySet().removeIf(key -> key.endsWith(".replication.factor")); // one broker here
        assertEquals(
                spec.path("bootstrapServers").asText(),
                config.get(BOOTSTRAP_PARAM),
                "the recipe names the worker's cluster to the provider");
        assertEquals(mountedCa, config.get(TRUSTSTORE_PARAM), "the recipe trusts the CA Strimzi mounts");
        assertEquals("PEM", config.get("config.providers.tcpsight.param.ssl.truststore.type"));
        assertEquals(
                Double.toString(TARGET_MBIT),
                Double.toString(Double.parseDouble(
                        config.get("config.providers.tcpsight.param.tcpsight.target.throughput.mbit"))));
        if (withBootstrapParam) {
            config.put(BOOTSTRAP_PARAM, broker.bootstrapServers());
        } else {
            config.remove(BOOTSTRAP_PARAM);
        }
        config.put(TRUSTSTORE_PARAM, tls.brokerCertificate().toString());
        // Strimzi's own providers, after the user's
        config.put("config.providers", config.get("config.providers") + ",strimzienv,strimzifile,strimzidir");
        config.put("config.providers.strimzienv.class", "org.apache.kafka.common.config.provider.EnvVarConfigProvider");
        config.put("config.providers.strimzifile.class", "org.apache.kafka.common.config.provider.FileConfigProvider");
        config.put(
                "config.providers.strimzidir.class", "org.apache.kafka.common.config.provider.DirectoryConfigProvider");
        assertFalse(config.keySet().stream().anyMatch(key -> key.startsWith("rest.")), "Strimzi drops rest.*");
        return config;
    }

    /** A FileStreamSink whose consumer takes its fetch sizes from the provider, as docs/connect-plugin.md shows. */
    private static Map<String, String> adaptedSink(LabConnectWorker worker, String name) {
        Map<String, String> sink = new HashMap<>();
        sink.put("connector.class", "org.apache.kafka.connect.file.FileStreamSinkConnector");
        sink.put("tasks.max", "1");
        sink.put("topics", "orders");
        sink.put("file", worker.directory().resolve(name + ".txt").toString());
        for (String key : FETCH_KEYS) {
            sink.put("consumer.override." + key, "${tcpsight:fetch:" + key + "}");
        }
        return sink;
    }

    private static List<String> lines(String log, String text) {
        return log.lines().filter(line -> line.contains(text)).collect(Collectors.toList());
    }
}
