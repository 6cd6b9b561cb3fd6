package io.tcpsight.internal.export;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A table's rows as a scrape can see them at any moment of an update: the registry is asked how
 * many rows the gauge has each time one is added, which is when a scrape could see one too many.
 */
class GaugeRowsTest {
    @Test
    void aTableOfTwoNeverShowsAThirdRowWhileItsRowsChange() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<Integer> rowsWhenOneWasAdded = new ArrayList<>();
        registry.config().onMeterAdded(meter -> {
            if (meter.getId().getName().equals("test.table")) {
                rowsWhenOneWasAdded.add(registry.find("test.table").gauges().size());
            }
        });
        GaugeRows table = new GaugeRows(MultiGauge.builder("test.table").register(registry));
        table.show(rows("a", "b"));
        table.show(rows("a", "c")); // b goes, c comes; a stays
        table.show(rows("d", "e")); // both go, both come
        table.show(rows("d", "e")); // nothing changes
        assertEquals(List.of(0, 1, 1, 0, 1), rowsWhenOneWasAdded, "rows already in the registry as each row was added");
        assertEquals(2, registry.find("test.table").gauges().size());
        assertEquals(
                4.0,
                registry.find("test.table").tag("client", "e").gauge().value(),
                "a row reads the value of its latest show");
    }

    private static Map<Tags, Integer> rows(String first, String second) {
        Map<Tags, Integer> rows = new LinkedHashMap<>();
        rows.put(Tags.of("client", first), first.charAt(0) - 'a');
        rows.put(Tags.of("client", second), second.charAt(0) - 'a');
        return rows;
    }
}
