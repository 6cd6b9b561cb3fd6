package io.tcpsight.export;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tcpsight.config.TcpsightConfig;
import io.tcpsight.diagnose.Finding;
import io.tcpsight.diagnose.RuleId;
import io.tcpsight.diagnose.Severity;
import io.tcpsight.diagnose.WindowModel;
import io.tcpsight.model.ConnectionIdentity;
import io.tcpsight.model.IntervalStats;
import io.tcpsight.monitor.ConnectionMonitor;
import io.tcpsight.sampling.ConnectionSample;
import io.tcpsight.sampling.TrackedConnection;
import io.tcpsight.tcp.SocketBufferState;
import java.util.List;
import java.util.Optional;

/**
 * Binds tcpsight's view of the connections to Micrometer: distributions across connections
 * rather than a series per connection, base units, and tags role, client.id, node.id and
 * listener. Peer addresses are never tags unless both per-connection series and peer labels
 * are opted in.
 */
public final class TcpsightMeterBinder implements MeterBinder, ConnectionMonitor.RoundListener {
    static final String UNKNOWN = "unknown";

    private final ConnectionMonitor monitor;
    private final boolean perConnection;
    private final boolean peerLabels;
    private volatile MeterRegistry registry;

    public TcpsightMeterBinder(ConnectionMonitor monitor) {
        this.monitor = monitor;
        this.perConnection = monitor.config().get(TcpsightConfig.METRICS_PER_CONNECTION);
        this.peerLabels = perConnection && monitor.config().get(TcpsightConfig.METRICS_PEER_LABELS);
        monitor.addListener(this);
    }

    @Override
    public void bindTo(MeterRegistry meterRegistry) {
        Gauge.builder("tcpsight.connections", monitor.registry(), r -> r.size())
                .description("Connections tcpsight is tracking")
                .register(meterRegistry);
        Gauge.builder("tcpsight.connections.refused", monitor.registry(), r -> r.refused())
                .description("Connections not tracked because tcpsight.max.tracked.connections was reached")
                .register(meterRegistry);
        for (RuleId rule : RuleId.values()) {
            for (Severity severity : Severity.values()) {
                Gauge.builder("tcpsight.findings", monitor.board(), board -> board.count(rule, severity))
                        .tags("rule", rule.id(), "severity", severity.label())
                        .description("Current findings by rule and severity")
                        .register(meterRegistry);
            }
        }
        this.registry = meterRegistry;
    }

    static Tags tags(ConnectionIdentity identity) {
        return Tags.of(
                "role",
                identity.role().label(),
                "client.id",
                orUnknown(identity.clientId()),
                "node.id",
                orUnknown(identity.nodeId()),
                "listener",
                orUnknown(identity.listener()));
    }

    private static String orUnknown(Optional<String> value) {
        return orUnknown(value.orElse(null));
    }

    private static String orUnknown(String value) {
        return value == null || value.isEmpty() ? UNKNOWN : value;
    }

    @Override
    public void onRound(List<TrackedConnection> sampled, List<Finding> findings) {
        MeterRegistry meters = registry;
        if (meters == null) {
            return;
        }
        for (TrackedConnection connection : sampled) {
            ConnectionSample sample = connection.latest().get();
            Tags tags = tags(connection.identity());
            if (perConnection) {
                tags = tags.and(
                        "local.port",
                        Integer.toString(
                                connection.identity().local() == null
                                        ? 0
                                        : connection.identity().local().getPort()));
                if (peerLabels) {
                    tags = tags.and(
                            "peer",
                            orUnknown(ConnectionIdentity.address(
                                    connection.identity().remote())));
                }
            }
            summary(meters, "tcpsight.connection.rtt", "seconds", "Smoothed round-trip time", tags)
                    .record(sample.rttMicros() / 1e6);
            if (sample.deliveryRateBytesPerSecond().isPresent()) {
                summary(
                                meters,
                                "tcpsight.connection.delivery.rate",
                                "bytes.per.second",
                                "Most recent delivery rate",
                                tags)
                        .record(sample.deliveryRateBytesPerSecond().getAsLong());
            }
            summary(
                            meters,
                            "tcpsight.connection.window.ceiling",
                            "bytes",
                            "Largest receive window this end can advertise",
                            tags)
                    .record(windowCeiling(sample));
            if (sample.interval().isPresent()) {
                IntervalStats interval = sample.interval().get();
                Counter.builder("tcpsight.connection.retransmits")
                        .baseUnit("segments")
                        .description("Retransmitted segments")
                        .tags(tags)
                        .register(meters)
                        .increment(interval.retransmittedSegments());
                if (interval.busyRatio() > 0) {
                    summary(
                                    meters,
                                    "tcpsight.connection.rwnd.limited",
                                    "ratio",
                                    "Share of busy time limited by the peer's window",
                                    tags)
                            .record(interval.rwndLimitedRatio());
                    summary(
                                    meters,
                                    "tcpsight.connection.sndbuf.limited",
                                    "ratio",
                                    "Share of busy time limited by the send buffer",
                                    tags)
                            .record(interval.sndbufLimitedRatio());
                }
            }
        }
    }

    /** 65535 shifted by the window scale, or the clamp when smaller. */
    static long windowCeiling(ConnectionSample sample) {
        long unscaled = WindowModel.UNSCALED_WINDOW_MAX;
        long ceiling = sample.options().windowScaling() ? unscaled << sample.rcvWindowScale() : unscaled;
        int clamp = sample.buffers().map(SocketBufferState::windowClampBytes).orElse(0);
        return clamp > 0 ? Math.min(ceiling, clamp) : ceiling;
    }

    private static DistributionSummary summary(
            MeterRegistry meters, String name, String unit, String description, Tags tags) {
        return DistributionSummary.builder(name)
                .baseUnit(unit)
                .description(description)
                .tags(tags)
                .publishPercentileHistogram()
                .register(meters);
    }
}
