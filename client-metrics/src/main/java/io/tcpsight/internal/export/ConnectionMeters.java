package io.tcpsight.internal.export;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.monitor.JudgedConnection;
import io.tcpsight.internal.monitor.Round;
import io.tcpsight.internal.sampling.ConnectionSample;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Binds tcpsight's view of the connections to Micrometer with a series count that does not grow
 * with clients or connections: histograms over all connections with fixed domain buckets
 * ({@link HistogramBuckets}), tagged only role, listener and node.id; per-client detail only in
 * the bounded table of the worst connections ({@link WorstConnectionsTable}). docs/metrics.md has
 * the worst-case series count.
 */
public final class ConnectionMeters implements MeterBinder, ConnectionMonitor.RoundListener {
    /**
     * Tag sets (role, listener, node.id) beyond this share one per role with listener and node.id
     * "other": a broker in a large cluster has a tag set per peer broker, and 84 series each.
     */
    static final int MAX_TAG_SETS = 16;

    static final String OTHER = "other";

    /** A round's duration, from an idle client (under a millisecond) to a round longer than any interval. */
    private static final Duration[] ROUND_BUCKETS = {
        Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(25), Duration.ofMillis(100),
        Duration.ofMillis(250), Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(10)
    };

    private final ConnectionMonitor monitor;
    private final int topConnections;
    private final boolean peerLabels;
    private final Map<Tags, AggregateMeters> aggregates = new ConcurrentHashMap<>();
    private final Map<List<Object>, AggregateMeters> byTagSet = new ConcurrentHashMap<>();
    /**
     * The tag set each tracked connection's opening was counted under, so that its close is counted under the
     * same whatever its identity learned since. Kept on the connection ({@link TrackedConnection#countAs}) by the
     * first binder of the process, here by any other (an application's second registry, the OTLP push beside the
     * agent's endpoint); an entry leaves when its connection does.
     */
    private final Map<TrackedConnection, AggregateMeters> countedElsewhere = new ConcurrentHashMap<>();

    private volatile MeterRegistry registry;
    private volatile WorstConnectionsTable worst;
    private volatile GaugeRows findingsByTagSet;
    private volatile GaugeRows untrackedByListener;
    private volatile Timer roundDuration;
    private volatile Timer preparationDuration;

    private final HostSignalMeters hostMeters;
    private volatile boolean unsubscribed;
    private final Consumer<TrackedConnection> onClose = this::closed;
    private final Consumer<TrackedConnection> onForget = this::release; // not this component's: it did not close

    public ConnectionMeters(ConnectionMonitor monitor) {
        this.monitor = monitor;
        this.topConnections = Math.toIntExact(monitor.config().get(TcpsightConfig.METRICS_TOP_CONNECTIONS));
        this.peerLabels = monitor.config().get(TcpsightConfig.METRICS_PEER_LABELS);
        monitor.addListener(this);
        monitor.registry().onClose(onClose);
        monitor.registry().onForget(onForget); // not this component's: it did not close
        this.hostMeters = new HostSignalMeters(monitor);
    }

    /**
     * Stops following the monitor's rounds and connections: for an application's binder that is
     * closed while its client runs on. The meters stay where they were registered; whoever bound
     * them removes them.
     */
    public void unsubscribe() {
        unsubscribed = true; // a round already under way registers nothing more
        monitor.removeListener(this);
        monitor.removeListener(hostMeters);
        monitor.registry().removeListener(onClose);
        monitor.registry().removeListener(onForget);
        for (TrackedConnection connection : monitor.registry().connections()) {
            release(connection); // its field free for a binder bound later
        }
    }

    @Override
    public void bindTo(MeterRegistry meterRegistry) {
        hostMeters.bindTo(meterRegistry);
        Gauge.builder("tcpsight.connections", monitor.registry(), r -> r.size())
                .description("Connections tcpsight is tracking")
                .register(meterRegistry);
        Gauge.builder("tcpsight.connections.refused", monitor.registry(), r -> r.refused())
                .description("Connections not tracked because tcpsight.max.tracked.connections was reached")
                .register(meterRegistry);
        this.untrackedByListener = new GaugeRows(MultiGauge.builder("tcpsight.connections.untracked")
                .description("Connections open but not tracked because tcpsight.max.tracked.connections was reached,"
                        + " by the listener they came in on; a row only where there are some")
                .register(meterRegistry));
        for (RuleId rule : RuleId.values()) {
            for (Severity severity : Severity.values()) {
                Gauge.builder("tcpsight.findings", monitor.board(), board -> board.count(rule, severity))
                        .tags("rule", rule.id(), "severity", severity.label())
                        .description("Current findings by rule and severity")
                        .register(meterRegistry);
            }
        }
        this.findingsByTagSet = new GaugeRows(MultiGauge.builder("tcpsight.connection.findings")
                .description("Current warn and critical findings by rule and severity on the connections of a tag set"
                        + " (role, listener, node.id); a row only where there is one, for alerts to route by")
                .register(meterRegistry));
        this.roundDuration = Timer.builder("tcpsight.round.duration")
                .description("How long each round took to sample every tracked connection and judge it: what"
                        + " tcpsight costs its host; a round longer than tcpsight.sample.interval.ms delays the next")
                .serviceLevelObjectives(ROUND_BUCKETS)
                .register(meterRegistry);
        this.preparationDuration = Timer.builder("tcpsight.round.preparation.duration")
                .description("How long the steps before each round took: the process census where a component"
                        + " finds its sockets by it (the reporter, the Connect plugin); in the agent, its bookkeeping of"
                        + " connection ids")
                .serviceLevelObjectives(ROUND_BUCKETS)
                .register(meterRegistry);
        Gauge.builder(
                        "tcpsight.round.interval",
                        monitor.config(),
                        config -> config.get(TcpsightConfig.SAMPLE_INTERVAL_MS) / 1000.0)
                .description(
                        "The interval between rounds (tcpsight.sample.interval.ms): a round that takes longer delays the next")
                .baseUnit("seconds")
                .register(meterRegistry);
        for (String reason : new String[] {"gone", "reused", "failed"}) {
            FunctionCounter.builder("tcpsight.sample.errors", monitor, m -> m.sampleErrors(reason))
                    .tag("reason", reason)
                    .description("Samples of tracked connections that failed, since the start: gone (the descriptor"
                            + " closed unreported; released), reused (it holds another socket now; released), failed"
                            + " (any other error; sampled again)")
                    .register(meterRegistry);
        }
        this.worst = new WorstConnectionsTable(meterRegistry, topConnections, peerLabels);
        this.registry = meterRegistry;
    }

    /** The aggregate's tags: only dimensions whose values are few and fixed per process. */
    @Override
    public void onRound(Round round) {
        MeterRegistry meters = registry;
        if (meters == null || unsubscribed) {
            return;
        }
        monitor.lastRoundNanos().ifPresent(nanos -> roundDuration.record(nanos, TimeUnit.NANOSECONDS));
        monitor.lastPreparationNanos().ifPresent(nanos -> preparationDuration.record(nanos, TimeUnit.NANOSECONDS));
        // The connections the round read: one carried unread (idle) is recorded in the rounds that read it, every
        // few. Recording its last sample again in every round cost a broker of 15,000 idle connections more than
        // all else. A connection is read in its first rounds (it is carried only after two reads that found nothing
        // moved), so its opening is counted then; a binder bound later counts an idle one's at its next read.
        for (JudgedConnection judged : round.read()) {
            TrackedConnection connection = judged.connection();
            ConnectionIdentity identity = connection.identity();
            AggregateMeters counted = countedAs(connection);
            // most rounds find a connection under the tag set its opening was counted under: one lookup, no key built
            AggregateMeters aggregate =
                    counted != null && counted.isFor(identity) ? counted : aggregate(meters, identity);
            aggregate.record(judged.sample(), judged.windowCeilingBytes());
            if (counted == null && keepCountedAs(connection, aggregate)) {
                aggregate.opened.increment();
                if (!connection.isTracked()) {
                    // let go while this round ran, before its entry was here: its close counted nothing
                    closed(connection);
                } else if (unsubscribed) {
                    release(connection); // unsubscribed while this round ran: nothing of this binder stays on it
                }
            }
        }
        worst.update(round);
        showFindingsByTagSet(round.findings());
        showUntracked();
    }

    /**
     * This round's warn and critical findings counted per rule, severity and the tag set their
     * connection is counted under (listener and node.id "other" past the cap), so that an alert
     * carries role, listener and node.id. Rows are replaced each round: a tag set whose findings
     * cleared loses its row at once. At most 2 x rules x tag sets rows, only those with a finding.
     */
    private void showFindingsByTagSet(List<Finding> findings) {
        Map<Tags, Integer> counts = new HashMap<>();
        for (Finding finding : findings) {
            if (finding.severity() == Severity.INFO) {
                continue;
            }
            counts.merge(
                    bounded(ConnectionTags.of(finding.connection()))
                            .and(
                                    "rule",
                                    finding.rule().id(),
                                    "severity",
                                    finding.severity().label()),
                    1,
                    Integer::sum);
        }
        findingsByTagSet.show(counts);
    }

    /** The connections refused past the limit and still open, a row per listener that has some. */
    private void showUntracked() {
        Map<Tags, Long> untracked = new HashMap<>();
        monitor.registry()
                .untracked()
                .forEach((listener, count) -> untracked.put(
                        Tags.of("listener", listener.isEmpty() ? ConnectionTags.UNKNOWN : listener), count));
        untrackedByListener.show(untracked);
    }

    /**
     * How many connections' openings are held for their closes: on the registry's connections and in this
     * binder's own map.
     */
    int countedConnections() {
        int onConnections = 0;
        for (TrackedConnection connection : monitor.registry().connections()) {
            onConnections += keptOn(connection) != null ? 1 : 0;
        }
        return onConnections + countedElsewhere.size();
    }

    /** What this binder keeps on the connection's own field; null where the field holds none of its. */
    private AggregateMeters keptOn(TrackedConnection connection) {
        Object kept = connection.countedAs().orElse(null);
        return kept instanceof AggregateMeters && ((AggregateMeters) kept).binder == this
                ? (AggregateMeters) kept
                : null;
    }

    /** The tag set this connection's opening was counted under by this binder; null before it was counted. */
    private AggregateMeters countedAs(TrackedConnection connection) {
        AggregateMeters kept = keptOn(connection);
        if (kept != null) {
            return kept;
        }
        return countedElsewhere.isEmpty() ? null : countedElsewhere.get(connection);
    }

    /**
     * Keeps the tag set a connection's opening is counted under: on the connection, unless another binder's is
     * there. True where this call kept it (so the opening is counted once, whatever a close does at once).
     */
    private boolean keepCountedAs(TrackedConnection connection, AggregateMeters aggregate) {
        return connection.countAs(null, aggregate) || countedElsewhere.putIfAbsent(connection, aggregate) == null;
    }

    /** The tag set kept for this connection's opening, no longer kept; null where this binder kept none. */
    private AggregateMeters release(TrackedConnection connection) {
        AggregateMeters kept = keptOn(connection);
        if (kept != null) {
            return connection.countAs(kept, null) ? kept : null;
        }
        return countedElsewhere.remove(connection);
    }

    /**
     * A connection ended: counted as closed under the tags its opening was counted under, so that
     * opened minus closed is what is open per tag set; one never sampled was never counted.
     */
    private void closed(TrackedConnection connection) {
        AggregateMeters counted = release(connection);
        if (counted != null) {
            counted.closed.increment();
        }
    }

    /**
     * The aggregate this connection's tag set is counted under, found by its three values: building
     * and hashing a Tags for each connection each round cost a broker at 15,000 connections more than
     * recording. A tag set keeps its aggregate for good, so the lookup can be kept too (bounded).
     */
    private AggregateMeters aggregate(MeterRegistry meters, ConnectionIdentity identity) {
        // role, listener and node.id: the values ConnectionTags.of(identity) makes tags of
        List<Object> key = List.of(
                identity.role(),
                ConnectionTags.orUnknown(identity.listener()),
                ConnectionTags.orUnknown(identity.nodeId()));
        AggregateMeters known = byTagSet.get(key);
        if (known != null) {
            return known;
        }
        AggregateMeters aggregate = aggregate(meters, ConnectionTags.of(identity));
        if (byTagSet.size() < 4 * MAX_TAG_SETS) {
            byTagSet.put(key, aggregate);
        }
        return aggregate;
    }

    private AggregateMeters aggregate(MeterRegistry meters, Tags tags) {
        AggregateMeters existing = aggregates.get(tags);
        if (existing != null) {
            return existing;
        }
        return aggregates.computeIfAbsent(bounded(tags), key -> new AggregateMeters(this, meters, key));
    }

    /** The tag set a connection with these tags is counted under: its own, or "other" past the cap. */
    private Tags bounded(Tags tags) {
        return aggregates.containsKey(tags) || aggregates.size() < MAX_TAG_SETS
                ? tags
                : tags.and("listener", OTHER, "node.id", OTHER);
    }

    /**
     * The meters of one tag set; each round adds one observation per connection it read. RTT is a
     * Timer because Micrometer puts a double into a fixed bucket by its ceiling: a DistributionSummary
     * in seconds would count every sub-second RTT as le="1.0". Bytes and rates have whole-number
     * bounds, where the ceiling changes no bucket. The limited shares are times, as the kernel keeps
     * them, so that PromQL can divide rates over any window and any set of connections.
     */
    private static final class AggregateMeters {
        private final Timer rtt;
        private final DistributionSummary deliveryRate;
        private final DistributionSummary windowCeiling;
        private final Counter busy;
        private final Counter rwndLimited;
        private final Counter sndbufLimited;
        private final Counter retransmits;
        private final Counter segmentsOut;
        final Counter opened;
        final Counter closed;

        /** The tag values this set is for, as ConnectionTags.of writes them ("other" past the cap). */
        private final String role;

        private final String listener;
        private final String nodeId;
        /** Whose: a connection's kept tag set is read only by the binder that kept it. */
        final ConnectionMeters binder;

        AggregateMeters(ConnectionMeters binder, MeterRegistry meters, Tags tags) {
            this.binder = binder;
            role = value(tags, "role");
            listener = value(tags, "listener");
            nodeId = value(tags, "node.id");
            rtt = Timer.builder("tcpsight.connection.rtt")
                    .description(
                            "Smoothed round-trip time of the connections, once per connection read (each round, or every twelfth"
                                    + " for an idle one the agent carries unread)")
                    .tags(tags)
                    .serviceLevelObjectives(HistogramBuckets.RTT_SECONDS.durations())
                    .register(meters);
            deliveryRate = summary(
                            "tcpsight.connection.delivery.rate",
                            "bytes.per.second",
                            HistogramBuckets.BYTES_PER_SECOND,
                            tags)
                    .description("Most recent delivery rate of the connections, once per connection read")
                    .register(meters);
            windowCeiling = summary("tcpsight.connection.window.ceiling", "bytes", HistogramBuckets.BYTES, tags)
                    .description(
                            "Largest receive window this end can advertise (its scale, clamp and tcp_rmem, as the rules"
                                    + " judge it), once per connection read (each round, or every twelfth for an idle one the"
                                    + " agent carries unread)")
                    .register(meters);
            busy = seconds(meters, "tcpsight.connection.busy", "Time the connections were busy sending", tags);
            rwndLimited = seconds(
                    meters, "tcpsight.connection.rwnd.limited", "Busy time limited by the peer's receive window", tags);
            sndbufLimited =
                    seconds(meters, "tcpsight.connection.sndbuf.limited", "Busy time limited by the send buffer", tags);
            retransmits = Counter.builder("tcpsight.connection.retransmits")
                    .baseUnit("segments")
                    .description("Retransmitted segments of the tracked connections")
                    .tags(tags)
                    .register(meters);
            segmentsOut = Counter.builder("tcpsight.connection.sent")
                    .baseUnit("segments")
                    .description("Segments sent by the tracked connections")
                    .tags(tags)
                    .register(meters);
            // churn: a rolling restart shows as closes, then opens, to the restarted broker's node.id
            opened = Counter.builder("tcpsight.connection.opened")
                    .baseUnit("connections")
                    .description("Connections first sampled (opened, or first seen by tcpsight)")
                    .tags(tags)
                    .register(meters);
            closed = Counter.builder("tcpsight.connection.closed")
                    .baseUnit("connections")
                    .description("Tracked connections that ended (closed, reset, or their socket gone)")
                    .tags(tags)
                    .register(meters);
        }

        private static String value(Tags tags, String key) {
            for (Tag tag : tags) {
                if (tag.getKey().equals(key)) {
                    return tag.getValue();
                }
            }
            return "";
        }

        /** Whether a connection of this identity is counted under this tag set (ConnectionTags.of's values). */
        boolean isFor(ConnectionIdentity identity) {
            return role.equals(identity.role().label())
                    && listener.equals(ConnectionTags.orUnknown(identity.listener()))
                    && nodeId.equals(ConnectionTags.orUnknown(identity.nodeId()));
        }

        void record(ConnectionSample sample, Optional<Long> windowCeilingBytes) {
            rtt.record(sample.rttMicros(), TimeUnit.MICROSECONDS);
            sample.deliveryRateBytesPerSecond().ifPresent(deliveryRate::record);
            windowCeilingBytes.ifPresent(windowCeiling::record);
            if (sample.movedInInterval()) { // an idle connection's interval is all zeros, made when asked for
                IntervalStats interval = sample.interval().get();
                if (interval.busyMicros() > 0) { // an idle connection adds nothing, and at no cost
                    busy.increment(interval.busyMicros() / 1e6);
                    rwndLimited.increment(interval.rwndLimitedMicros() / 1e6);
                    sndbufLimited.increment(interval.sndbufLimitedMicros() / 1e6);
                }
                // most connections of a big broker sent nothing in the interval: a counter's add of 0 is not free
                if (interval.retransmittedSegments() > 0) {
                    retransmits.increment(interval.retransmittedSegments());
                }
                if (interval.segmentsOut() > 0) {
                    segmentsOut.increment(interval.segmentsOut());
                }
            }
        }

        private static DistributionSummary.Builder summary(
                String name, String unit, HistogramBuckets buckets, Tags tags) {
            return DistributionSummary.builder(name).baseUnit(unit).tags(tags).serviceLevelObjectives(buckets.bounds());
        }

        private static Counter seconds(MeterRegistry meters, String name, String description, Tags tags) {
            return Counter.builder(name)
                    .baseUnit("seconds")
                    .description(description)
                    .tags(tags)
                    .register(meters);
        }
    }
}
