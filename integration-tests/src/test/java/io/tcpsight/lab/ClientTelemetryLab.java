package io.tcpsight.lab;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListConfigResourcesOptions;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Client telemetry (KIP-714) in the lab as docs/client-telemetry.md sets it up: the agent's
 * receiver in the broker's {@code metric.reporters} beside Kafka's JmxReporter, and a
 * subscription that asks clients for the producer and consumer metrics at an interval.
 */
public final class ClientTelemetryLab {
    private static final String SUBSCRIPTION = "tcpsight";

    private ClientTelemetryLab() {}

    /** The receiver Kafka 3.7-4.1 call, and the exporter of 4.2 and later. */
    public static String receiverFor(KafkaBroker.Version version) {
        return version.compareTo(KafkaBroker.Version.V4_2) < 0
                ? "io.tcpsight.agent.TcpsightClientTelemetry"
                : "io.tcpsight.agent.TcpsightClientTelemetryExporter";
    }

    /** The broker's line, as the docs give it. */
    public static Map<String, String> brokerOverrides(KafkaBroker.Version version) {
        return Map.of("metric.reporters", "org.apache.kafka.common.metrics.JmxReporter," + receiverFor(version));
    }

    /**
     * Creates the subscription {@code tcpsight}: every producer and consumer metric, pushed every
     * {@code interval}, through an admin client with these connection settings (SASL, say), and
     * returns once the broker serves it. The controller acknowledges the change when it is
     * committed; the broker applies it later, after the metadata before it (a topic's new logs,
     * say). A client that asks for its subscription in between is given none, with the default
     * interval of 5 minutes, and pushes nothing for the rest of a test. The broker lists the
     * subscriptions it serves from the same map it answers clients from. One broker: with more, the
     * admin client asks one of them.
     */
    public static void subscribe(String bootstrapServers, Map<String, Object> clientSettings, Duration interval)
            throws Exception {
        Map<String, Object> config = new HashMap<>(clientSettings);
        config.put("bootstrap.servers", bootstrapServers);
        config.put("client.id", "telemetry-admin");
        try (Admin admin = Admin.create(config)) {
            admin.incrementalAlterConfigs(Map.of(
                            new ConfigResource(ConfigResource.Type.CLIENT_METRICS, SUBSCRIPTION),
                            List.of(
                                    new AlterConfigOp(
                                            new ConfigEntry(
                                                    "metrics", "org.apache.kafka.producer.,org.apache.kafka.consumer."),
                                            AlterConfigOp.OpType.SET),
                                    new AlterConfigOp(
                                            new ConfigEntry("interval.ms", Long.toString(interval.toMillis())),
                                            AlterConfigOp.OpType.SET))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            long committed = System.nanoTime();
            LabAwait.await("the broker serves the subscription " + SUBSCRIPTION)
                    .atMost(Duration.ofSeconds(30))
                    .untilTrue(() -> admin.listConfigResources(
                                    Set.of(ConfigResource.Type.CLIENT_METRICS), new ListConfigResourcesOptions())
                            .all()
                            .get(10, TimeUnit.SECONDS)
                            .contains(new ConfigResource(ConfigResource.Type.CLIENT_METRICS, SUBSCRIPTION)));
            System.out.printf(
                    "client telemetry: the broker serves the subscription %d ms after its commit%n",
                    (System.nanoTime() - committed) / 1_000_000);
        }
    }
}
