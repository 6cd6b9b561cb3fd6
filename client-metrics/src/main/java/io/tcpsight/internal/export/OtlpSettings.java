package io.tcpsight.internal.export;

import io.tcpsight.internal.config.InvalidSettingException;
import io.tcpsight.internal.config.TcpsightConfig;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Where and how often the OTLP push goes, from tcpsight's keys over the OpenTelemetry SDK's
 * environment variables (OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME, OTEL_METRIC_EXPORT_INTERVAL): a tcpsight key wins.
 */
public final class OtlpSettings {
    static final String DEFAULT_ENDPOINT = "http://localhost:4318/v1/metrics";

    private final String url;
    private final Map<String, String> resourceAttributes;
    private final Duration step;

    private OtlpSettings(String url, Map<String, String> resourceAttributes, Duration step) {
        this.url = url;
        this.resourceAttributes = resourceAttributes;
        this.step = step;
    }

    /**
     * @param environment the process environment (System::getenv), a map's get in tests
     * @param serviceName service.name when neither the keys nor OTEL_SERVICE_NAME give one
     */
    public static OtlpSettings resolve(TcpsightConfig config, UnaryOperator<String> environment, String serviceName) {
        String url = config.get(TcpsightConfig.OTLP_ENDPOINT);
        if (url.isEmpty()) {
            String metrics = environment.apply("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
            String base = environment.apply("OTEL_EXPORTER_OTLP_ENDPOINT");
            if (metrics != null && !metrics.isBlank()) {
                url = metrics.trim();
            } else if (base != null && !base.isBlank()) {
                // the SDK's rule: the signal's path is appended to the base endpoint
                url = base.trim().replaceAll("/+$", "") + "/v1/metrics";
            } else {
                url = DEFAULT_ENDPOINT;
            }
        }
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException malformed) {
            uri = null;
        }
        if (uri == null
                || uri.getHost() == null
                || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
            throw new InvalidSettingException(
                    TcpsightConfig.OTLP_ENDPOINT.name(), url, "an http(s) URL of an OTLP/HTTP metrics receiver");
        }
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("service.name", serviceName);
        String service = environment.apply("OTEL_SERVICE_NAME");
        attributes.putAll(pairs("OTEL_RESOURCE_ATTRIBUTES", environment.apply("OTEL_RESOURCE_ATTRIBUTES")));
        if (service != null && !service.isBlank()) {
            attributes.put("service.name", service.trim());
        }
        attributes.putAll(pairs(
                TcpsightConfig.OTLP_RESOURCE_ATTRIBUTES.name(), config.get(TcpsightConfig.OTLP_RESOURCE_ATTRIBUTES)));
        Duration step = Duration.ofMillis(config.get(TcpsightConfig.OTLP_STEP_MS));
        String interval = environment.apply("OTEL_METRIC_EXPORT_INTERVAL");
        if (!config.given(TcpsightConfig.OTLP_STEP_MS) && interval != null && !interval.isBlank()) {
            try {
                step = Duration.ofMillis(Math.max(1000, Long.parseLong(interval.trim())));
            } catch (NumberFormatException notANumber) {
                throw new InvalidSettingException(
                        "OTEL_METRIC_EXPORT_INTERVAL", interval, "milliseconds, a whole number (1000 or more)");
            }
        }
        return new OtlpSettings(url, attributes, step);
    }

    /** "k=v,k2=v2" (the OpenTelemetry form) or with semicolons, which agent arguments need. */
    private static Map<String, String> pairs(String key, String text) {
        Map<String, String> pairs = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return pairs;
        }
        for (String pair : text.split("[,;]")) {
            if (pair.isBlank()) {
                continue;
            }
            int equals = pair.indexOf('=');
            if (equals <= 0) {
                throw new InvalidSettingException(key, text, "key=value pairs separated by commas or semicolons");
            }
            pairs.put(
                    pair.substring(0, equals).trim(), pair.substring(equals + 1).trim());
        }
        return pairs;
    }

    public String url() {
        return url;
    }

    public Map<String, String> resourceAttributes() {
        return resourceAttributes;
    }

    public Duration step() {
        return step;
    }
}
