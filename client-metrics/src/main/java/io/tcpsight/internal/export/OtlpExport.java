package io.tcpsight.internal.export;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.registry.otlp.OtlpConfig;
import io.micrometer.registry.otlp.OtlpMeterRegistry;
import io.tcpsight.internal.model.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * tcpsight's meters pushed over OTLP/HTTP by Micrometer's OTLP registry: the same meters as the
 * Prometheus endpoint (histograms stay explicit-bucket histograms), with attribute names from
 * the OpenTelemetry semantic conventions where one exists (docs/metrics.md maps each one).
 */
public final class OtlpExport {
    private OtlpExport() {}

    /**
     * Starts pushing {@code meters} (the connection meters) every step; closing it pushes the last
     * step and stops the push thread.
     */
    public static AutoCloseable start(MeterBinder meters, OtlpSettings settings) {
        OtlpMeterRegistry registry = new OtlpMeterRegistry(config(settings), Clock.SYSTEM);
        registry.config().meterFilter(SEMANTIC_ATTRIBUTES).commonTags("messaging.system", "kafka");
        meters.bindTo(registry);
        return registry::close;
    }

    private static OtlpConfig config(OtlpSettings settings) {
        return new OtlpConfig() {
            @Override
            public String get(String key) {
                return null; // every value comes from the settings below or Micrometer's defaults
            }

            @Override
            public String url() {
                return settings.url();
            }

            @Override
            public Duration step() {
                return settings.step();
            }

            @Override
            public TimeUnit baseTimeUnit() {
                return TimeUnit.SECONDS; // base units, as on the Prometheus endpoint
            }

            @Override
            public Map<String, String> resourceAttributes() {
                return settings.resourceAttributes();
            }
        };
    }

    /**
     * client.id is messaging.client.id; the peer is server.* where this end is the client, client.*
     * where it is the broker. client.port already has the convention's meaning: the client's port.
     */
    static final MeterFilter SEMANTIC_ATTRIBUTES = new MeterFilter() {
        @Override
        public Meter.Id map(Meter.Id id) {
            if (!id.getName().startsWith("tcpsight.")) {
                return id;
            }
            boolean client = Role.CLIENT.label().equals(id.getTag("role"));
            List<Tag> tags = new ArrayList<>();
            for (Tag tag : id.getTagsAsIterable()) {
                switch (tag.getKey()) {
                    case "client.id":
                        tags.add(Tag.of("messaging.client.id", tag.getValue()));
                        break;
                    case "peer":
                        int colon = tag.getValue().lastIndexOf(':');
                        // the address without its port, and an IPv6 address without its brackets
                        String host = (colon > 0 ? tag.getValue().substring(0, colon) : tag.getValue())
                                .replaceAll("^\\[|\\]$", "");
                        if (client) {
                            tags.add(Tag.of("server.address", host));
                            if (colon > 0) {
                                tags.add(Tag.of("server.port", tag.getValue().substring(colon + 1)));
                            }
                        } else {
                            tags.add(Tag.of("client.address", host));
                        }
                        break;
                    default:
                        tags.add(tag);
                }
            }
            return id.replaceTags(tags);
        }
    };
}
