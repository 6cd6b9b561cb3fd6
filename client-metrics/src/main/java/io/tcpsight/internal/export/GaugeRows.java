package io.tcpsight.internal.export;

import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of a {@link MultiGauge}, replaced each round, where a row that stays keeps its meter.
 * Micrometer's replace-all ({@code register(rows, true)}) removes and adds every row again. A name
 * whose only row is removed loses its Prometheus collector and gets a new one when the row is
 * added back; a scrape that passes both in that moment fails whole, with a
 * DuplicateLabelsException. Here only rows that come or go are added or removed; a row that stays
 * is the same meter, reading a value this class updates. Rows that go leave before rows that come
 * arrive, so a table never shows more rows than its size.
 */
public final class GaugeRows {
    private final MultiGauge gauge;
    private Map<Tags, Value> shown = new HashMap<>();

    public GaugeRows(MultiGauge gauge) {
        this.gauge = gauge;
    }

    /** The rows from now on: one per tag set, with its value. Rows whose tag set is absent are removed. */
    public synchronized void show(Map<Tags, ? extends Number> values) {
        Map<Tags, Value> next = new HashMap<>();
        List<MultiGauge.Row<?>> rows = new ArrayList<>(values.size());
        List<MultiGauge.Row<?>> staying = new ArrayList<>(values.size());
        values.forEach((tags, number) -> {
            Value value = shown.get(tags);
            boolean stays = value != null;
            if (value == null) {
                value = new Value();
            }
            value.current = number.doubleValue();
            next.put(tags, value);
            MultiGauge.Row<?> row = MultiGauge.Row.of(tags, value, Value::current);
            rows.add(row);
            if (stays) {
                staying.add(row);
            }
        });
        // Rows that go are removed before rows that come are added (Micrometer adds first, then
        // removes): a scrape meanwhile sees fewer rows than the table's size, never more.
        if (staying.size() < shown.size()) {
            gauge.register(staying, false);
        }
        gauge.register(rows, false);
        shown = next;
    }

    private static final class Value {
        private volatile double current;

        double current() {
            return current;
        }
    }
}
