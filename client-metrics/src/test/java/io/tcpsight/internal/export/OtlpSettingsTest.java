package io.tcpsight.internal.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.tcpsight.internal.config.InvalidSettingException;
import io.tcpsight.internal.config.TcpsightConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OtlpSettingsTest {
    private static OtlpSettings resolve(Map<String, String> keys, Map<String, String> environment) {
        return OtlpSettings.resolve(TcpsightConfig.from(keys), environment::get, "tcpsight-agent");
    }

    @Test
    void withNothingSetThePushGoesToTheLocalCollectorEveryMinute() {
        OtlpSettings settings = resolve(Map.of(), Map.of());
        assertEquals("http://localhost:4318/v1/metrics", settings.url());
        assertEquals(Duration.ofMinutes(1), settings.step());
        assertEquals(Map.of("service.name", "tcpsight-agent"), settings.resourceAttributes());
    }

    @Test
    void theOpenTelemetryVariablesAreReadAsTheSdkReadsThem() {
        OtlpSettings base = resolve(
                Map.of(),
                Map.of(
                        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/",
                        "OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod,host.name=broker-1",
                        "OTEL_SERVICE_NAME", "orders-broker",
                        "OTEL_METRIC_EXPORT_INTERVAL", "15000"));
        assertEquals("http://collector:4318/v1/metrics", base.url());
        assertEquals(Duration.ofSeconds(15), base.step());
        assertEquals(
                Map.of("service.name", "orders-broker", "deployment.environment", "prod", "host.name", "broker-1"),
                base.resourceAttributes());
        OtlpSettings signal = resolve(
                Map.of(),
                Map.of(
                        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318",
                        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "https://metrics.example.com/otlp/v1/metrics"));
        assertEquals("https://metrics.example.com/otlp/v1/metrics", signal.url());
    }

    @Test
    void tcpsightKeysWinOverTheEnvironment() {
        OtlpSettings settings = resolve(
                Map.of(
                        "tcpsight.otlp.endpoint", "http://127.0.0.1:14318/v1/metrics",
                        "tcpsight.otlp.step.ms", "1000",
                        "tcpsight.otlp.resource.attributes", "host.name=b1;service.name=tcpsight-on-b1"),
                Map.of(
                        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318",
                        "OTEL_METRIC_EXPORT_INTERVAL", "30000",
                        "OTEL_RESOURCE_ATTRIBUTES", "host.name=other"));
        assertEquals("http://127.0.0.1:14318/v1/metrics", settings.url());
        assertEquals(Duration.ofSeconds(1), settings.step());
        assertEquals(Map.of("service.name", "tcpsight-on-b1", "host.name", "b1"), settings.resourceAttributes());
    }

    @Test
    void badValuesNameTheKeyTheValueAndWhatIsAllowed() {
        InvalidSettingException endpoint = assertThrows(
                InvalidSettingException.class,
                () -> resolve(Map.of("tcpsight.otlp.endpoint", "collector:4318"), Map.of()));
        assertTrue(
                endpoint.getMessage().contains("tcpsight.otlp.endpoint")
                        && endpoint.getMessage().contains("collector:4318")
                        && endpoint.getMessage().contains("http(s) URL"),
                endpoint.getMessage());
        InvalidSettingException attributes = assertThrows(
                InvalidSettingException.class,
                () -> resolve(Map.of(), Map.of("OTEL_RESOURCE_ATTRIBUTES", "just-a-word")));
        assertTrue(attributes.getMessage().contains("OTEL_RESOURCE_ATTRIBUTES"), attributes.getMessage());
        assertThrows(InvalidSettingException.class, () -> resolve(Map.of("tcpsight.otlp.step.ms", "10"), Map.of()));
    }

    @Test
    void attributesTakeTheSemanticConventionsNamesByWhichEndThisIs() {
        Meter.Id client = new Meter.Id(
                "tcpsight.top.connection.rtt",
                Tags.of("role", "client", "client.id", "orders", "client.port", "51234", "peer", "10.0.0.7:9092"),
                null,
                null,
                Meter.Type.GAUGE);
        assertEquals(
                Tags.of(
                        "role", "client",
                        "messaging.client.id", "orders",
                        "client.port", "51234",
                        "server.address", "10.0.0.7",
                        "server.port", "9092"),
                Tags.of(OtlpExport.SEMANTIC_ATTRIBUTES.map(client).getTagsAsIterable()));
        Meter.Id broker = client.replaceTags(
                Tags.of("role", "broker", "client.id", "orders", "client.port", "51234", "peer", "[fd00::7]:51234"));
        assertEquals(
                Tags.of(
                        "role", "broker",
                        "messaging.client.id", "orders",
                        "client.port", "51234",
                        "client.address", "fd00::7"),
                Tags.of(OtlpExport.SEMANTIC_ATTRIBUTES.map(broker).getTagsAsIterable()));
    }
}
