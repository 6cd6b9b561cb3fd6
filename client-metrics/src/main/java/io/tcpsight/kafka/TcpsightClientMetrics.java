package io.tcpsight.kafka;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.tcpsight.internal.export.ConnectionMeters;
import io.tcpsight.internal.kafka.ReporterDirectory;
import io.tcpsight.internal.model.LogText;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * tcpsight's meters for one Kafka client, in an application's own Micrometer registry:
 *
 * <pre>{@code
 * new TcpsightClientMetrics(consumer).bindTo(registry);
 * }</pre>
 *
 * The client runs tcpsight's reporter ({@link TcpsightMetricsReporter} in its {@code metric.reporters}); this binder finds that reporter through the client's own {@code metrics()} and
 * binds the same meters the agent and the Connect plugin export (docs/metrics.md), each tagged
 * with the client's {@code client.id} and the tags given here. An application has a few clients,
 * so a tag per client is a few series more, as with Micrometer's own {@code KafkaClientMetrics};
 * two clients that share a client.id in one registry share their series too, unless the tags
 * given here tell them apart. Without a reporter at work in the client, {@link #bindTo} logs one
 * line and binds nothing. {@link #close} removes the meters it bound and stops following the
 * client; a reporter that turns itself off later stops its rounds, and the meters stand still.
 */
public final class TcpsightClientMetrics implements MeterBinder, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TcpsightClientMetrics.class);
    private static final String CLIENT_ID_TAG = "client.id";

    private final Supplier<Map<MetricName, ? extends Metric>> metrics;
    private final Iterable<Tag> tags;
    private final List<Binding> bindings = new ArrayList<>();

    public TcpsightClientMetrics(Consumer<?, ?> consumer) {
        this(consumer, Tags.empty());
    }

    public TcpsightClientMetrics(Consumer<?, ?> consumer, Iterable<Tag> tags) {
        this(consumer::metrics, tags);
    }

    public TcpsightClientMetrics(Producer<?, ?> producer) {
        this(producer, Tags.empty());
    }

    public TcpsightClientMetrics(Producer<?, ?> producer, Iterable<Tag> tags) {
        this(producer::metrics, tags);
    }

    public TcpsightClientMetrics(Admin admin) {
        this(admin, Tags.empty());
    }

    public TcpsightClientMetrics(Admin admin, Iterable<Tag> tags) {
        this(admin::metrics, tags);
    }

    private TcpsightClientMetrics(Supplier<Map<MetricName, ? extends Metric>> metrics, Iterable<Tag> tags) {
        this.metrics = metrics;
        this.tags = tags;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Map<MetricName, ? extends Metric> clientMetrics = metrics.get();
        Optional<ConnectionMonitor> monitor = ReporterDirectory.of(clientMetrics);
        String clientId = clientId(clientMetrics);
        if (monitor.isEmpty()) {
            LOG.warn(LogText.oneLine("tcpsight: no meters bound for client.id=" + clientId
                    + ": no tcpsight reporter is at work in this client; add"
                    + " metric.reporters=" + TcpsightMetricsReporter.class.getName()
                    + " to its config, or read the reporter's own line in the log for why it is off"));
            return;
        }
        // the client's tag and the application's on every meter, and all of them removable at once
        CompositeMeterRegistry tagged =
                new CompositeMeterRegistry(registry.config().clock());
        tagged.config().commonTags(Tags.of(CLIENT_ID_TAG, clientId).and(tags));
        tagged.add(registry);
        synchronized (bindings) { // a close() at the same time removes this binding whole, or after it
            ConnectionMeters meters = new ConnectionMeters(monitor.get());
            meters.bindTo(tagged);
            bindings.add(new Binding(registry, tagged, meters));
        }
    }

    /** Removes every meter this binder bound, from every registry, and stops following the client. */
    @Override
    public void close() {
        synchronized (bindings) {
            for (Binding binding : bindings) {
                binding.meters.unsubscribe();
                for (Meter meter : new ArrayList<>(binding.tagged.getMeters())) {
                    binding.tagged.remove(meter); // the composite removes it from the application's registry too
                }
                // a round under way when it unsubscribed registers into the composite alone
                binding.tagged.remove(binding.registry);
            }
            bindings.clear();
        }
    }

    /** The client.id its metrics are tagged with; "unknown" when none says. */
    private static String clientId(Map<MetricName, ? extends Metric> clientMetrics) {
        for (MetricName name : clientMetrics.keySet()) {
            String id = name.tags().get("client-id");
            if (id != null && !id.isEmpty()) {
                return id;
            }
        }
        return "unknown";
    }

    private static final class Binding {
        final MeterRegistry registry;
        final CompositeMeterRegistry tagged;
        final ConnectionMeters meters;

        Binding(MeterRegistry registry, CompositeMeterRegistry tagged, ConnectionMeters meters) {
            this.registry = registry;
            this.tagged = tagged;
            this.meters = meters;
        }
    }
}
