package io.tcpsight.internal.export;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.monitor.ConnectionRanking;
import io.tcpsight.internal.monitor.Round;
import io.tcpsight.internal.sampling.ConnectionSample;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * The only per-client series: gauges for the {@code size} worst connections of the last round,
 * tagged with their client.id, for a dashboard's drill-down table. Connections with findings come
 * first (worst severity, then most findings), then the most window-limited, then the highest
 * RTT. Every round replaces the rows, so a connection that closed or recovered loses its series
 * at once, and the count never exceeds {@code size} rows of {@link #GAUGES} gauges.
 */
final class WorstConnectionsTable {
    static final int GAUGES = 5;

    private final int size;
    private final boolean peerLabels;
    private final List<Column> columns = new ArrayList<>();

    WorstConnectionsTable(MeterRegistry registry, int size, boolean peerLabels) {
        this.size = size;
        this.peerLabels = peerLabels;
        if (size > 0) {
            columns.add(new Column(
                    registry, "tcpsight.top.connection.rtt", "seconds", "Smoothed RTT", row -> row.rttSeconds));
            columns.add(new Column(
                    registry,
                    "tcpsight.top.connection.window.ceiling",
                    "bytes",
                    "Largest receive window this end can advertise, as the rules judge it",
                    row -> row.windowCeilingBytes));
            columns.add(new Column(
                    registry,
                    "tcpsight.top.connection.delivery.rate",
                    "bytes.per.second",
                    "Most recent delivery rate (0 when none was measured)",
                    row -> row.deliveryRate));
            columns.add(new Column(
                    registry,
                    "tcpsight.top.connection.rwnd.limited",
                    "ratio",
                    "Share of the last interval's busy time limited by the peer's window",
                    row -> row.rwndLimited));
            columns.add(new Column(
                    registry,
                    "tcpsight.top.connection.findings",
                    null,
                    "Current findings on the connection",
                    row -> row.findings));
        }
    }

    void update(Round round) {
        if (size == 0) {
            return;
        }
        List<Row> rows = rank(round, size, peerLabels);
        for (Column column : columns) {
            column.show(rows);
        }
    }

    /**
     * The {@code limit} worst of the sampled connections, worst first ({@link ConnectionRanking}), each
     * with tags of its own. Two hosts' connections can share a client.id and an ephemeral port; without
     * address labels their rows would be one series, so the worse is shown and the next fills the table.
     */
    static List<Row> rank(Round round, int limit, boolean peerLabels) {
        // Twice the rows leaves room for the rare pair that shares tags; when it does not, every connection is ranked.
        List<ConnectionRanking.Ranked> candidates = ConnectionRanking.rank(round, 2 * limit);
        Map<Tags, Row> rows = rows(candidates, limit, peerLabels);
        if (rows.size() < limit && candidates.size() == 2 * limit) {
            rows = rows(ConnectionRanking.rank(round, Integer.MAX_VALUE), limit, peerLabels);
        }
        return new ArrayList<>(rows.values());
    }

    private static Map<Tags, Row> rows(List<ConnectionRanking.Ranked> ranked, int limit, boolean peerLabels) {
        Map<Tags, Row> rows = new LinkedHashMap<>();
        for (ConnectionRanking.Ranked candidate : ranked) {
            if (rows.size() == limit) {
                break;
            }
            Row row = new Row(candidate, peerLabels);
            rows.putIfAbsent(row.tags, row);
        }
        return rows;
    }

    /** One connection of the table, as numbers taken in the round it was ranked. */
    static final class Row {
        final ConnectionIdentity identity;
        final int findings;
        final double rttSeconds;
        final double windowCeilingBytes;
        final double deliveryRate;
        final double rwndLimited;
        final Tags tags;

        Row(ConnectionRanking.Ranked ranked, boolean peerLabels) {
            ConnectionSample sample = ranked.sample;
            this.identity = ranked.connection.identity();
            this.findings = ranked.findings;
            this.rttSeconds = sample.rttMicros() / 1e6;
            this.windowCeilingBytes = ranked.windowCeilingBytes.orElse(0L);
            this.deliveryRate = sample.deliveryRateBytesPerSecond().orElse(0);
            this.rwndLimited =
                    sample.interval().map(IntervalStats::rwndLimitedRatio).orElse(0.0);
            this.tags = tags(peerLabels);
        }

        /**
         * client.port tells connections of one client apart: the client's ephemeral port, whichever end this
         * is.
         */
        private Tags tags(boolean peerLabels) {
            InetSocketAddress clientEnd = identity.role() == Role.CLIENT
                    ? identity.local().orElse(null)
                    : identity.remote().orElse(null);
            Tags tags = ConnectionTags.of(identity)
                    .and("client.id", ConnectionTags.orUnknown(identity.clientId()))
                    .and("client.port", clientEnd == null ? "0" : Integer.toString(clientEnd.getPort()));
            return peerLabels
                    ? tags.and(
                            "peer",
                            Objects.requireNonNullElse(
                                    identity.remote()
                                            .map(ConnectionIdentity::address)
                                            .orElse(null),
                                    ConnectionTags.UNKNOWN))
                    : tags;
        }
    }

    /** One gauge name, a row per ranked connection. */
    private static final class Column {
        private final GaugeRows gauge;
        private final ToDoubleFunction<Row> value;

        Column(MeterRegistry registry, String name, String unit, String description, ToDoubleFunction<Row> value) {
            MultiGauge.Builder builder = MultiGauge.builder(name).description(description);
            this.gauge = new GaugeRows((unit == null ? builder : builder.baseUnit(unit)).register(registry));
            this.value = value;
        }

        void show(List<Row> rows) {
            Map<Tags, Double> values = new LinkedHashMap<>();
            for (Row row : rows) {
                values.put(row.tags, value.applyAsDouble(row));
            }
            gauge.show(values);
        }
    }
}
