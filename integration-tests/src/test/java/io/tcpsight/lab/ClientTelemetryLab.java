package io.tcpsight.lab;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Client telemetry (KIP-714) in the lab as docs/client-telemetry.md sets it up: the agent's
 * receiver in the broker's {@code metric.reporters} beside Kafka's JmxReporter, and a
 * subscription that asks clients for the producer and consumer metrics at an interval.
 */
public final class ClientTelemetryLab {
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
     * {@code interval}, through an admin client with these connection settings (SASL, say).
     */
    public static void subscribe(String bootstrapServers, Map<String, Object> clientSettings, Duration interval)
            throws Exception {
        Map<String, Object> config = new HashMap<>(clientSettings);
        config.put("bootstrap.servers", bootstrapServers);
        config.put("client.id", "telemetry-admin");
        try (Admin admin = Admin.create(config)) {
            admin.incrementalAlterConfigs(Map.of(
                            new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "tcpsight"),
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
        }
    }
}
