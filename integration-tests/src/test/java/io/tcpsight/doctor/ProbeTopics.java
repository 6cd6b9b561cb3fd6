package io.tcpsight.doctor;

import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.LabTopics;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Lab helpers for the doctor's throughput probe: a filled one-partition topic, and the probe's lines read back. */
final class ProbeTopics {
    private static final Pattern PROBE_LINE =
            Pattern.compile("^  (\\S.*?)\\s+([0-9.]+) Mbit/s  \\(", Pattern.MULTILINE);

    private ProbeTopics() {}

    /** A one-partition topic with megabytes of uncompressed 64 KiB records, produced across the lab's line. */
    static void fill(KafkaBroker broker, String topic, int megabytes) throws Exception {
        LabTopics.create(broker, topic, 1);
        LabTopics.fill(broker, topic, megabytes * 16, 64 * 1024);
    }

    /** The same topic, written beside the broker (its namespace), not across the line. */
    static void fill(KernelLab lab, KafkaBroker broker, String topic, int megabytes) throws Exception {
        LabTopics.create(broker, topic, 1);
        LabTopics.fillBesideBroker(lab, broker, topic, megabytes * 16, 64 * 1024);
    }

    /** The consume probe's lines: variant label -> Mbit/s, in the order they ran. */
    static Map<String, Double> probeRates(String report) {
        return rates(report, "== consume throughput", "== produce throughput");
    }

    /** The produce probe's lines: variant label -> Mbit/s, in the order they ran. */
    static Map<String, Double> writeRates(String report) {
        return rates(report, "== produce throughput", "== findings");
    }

    private static Map<String, Double> rates(String report, String heading, String next) {
        int section = report.indexOf(heading);
        if (section < 0) {
            throw new AssertionError("no section '" + heading + "' in:\n" + report);
        }
        String lines = report.substring(section, report.indexOf(next, section));
        Map<String, Double> rates = new LinkedHashMap<>();
        Matcher matcher = PROBE_LINE.matcher(lines);
        while (matcher.find()) {
            rates.put(matcher.group(1).strip(), Double.parseDouble(matcher.group(2)));
        }
        return rates;
    }

    static double rate(Map<String, Double> rates, String prefix) {
        return rates.entrySet().stream()
                .filter(entry -> entry.getKey().startsWith(prefix))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no probe line starting '" + prefix + "' in " + rates));
    }
}
