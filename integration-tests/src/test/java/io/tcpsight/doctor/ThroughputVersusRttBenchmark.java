package io.tcpsight.doctor;

import io.tcpsight.lab.BenchmarkJit;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabDoctor;
import io.tcpsight.lab.Link;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Consume throughput against RTT for receive.buffer.bytes=65536, -1 (autotuned, Kafka's fetch
 * sizes) and tcpsight's recommendation, measured by the doctor's probe across the delay line at
 * 200 Mbit/s. Writes target/throughput-vs-rtt.csv and .svg (docs/images/throughput-vs-rtt.svg).
 * Not part of mvn verify (its name is not *IT); run it with:
 * mvn -B verify -pl integration-tests -am -Dit.test=ThroughputVersusRttBenchmark -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
 */
class ThroughputVersusRttBenchmark {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final int[] RTT_MS = {1, 10, 25, 50, 100, 200};
    private static final String[] VARIANTS = {
        "receive.buffer.bytes=65536", "receive.buffer.bytes=-1", "tcpsight recommendation"
    };
    private static final String[] LABELS = {
        "receive.buffer.bytes=65536 (Kafka's consumer default)",
        "receive.buffer.bytes=-1 (autotuned)",
        "tcpsight recommendation (-1 + fetch sizes from the BDP)"
    };
    private static final String[] COLORS = {"#d62728", "#1f77b4", "#2ca02c"};

    /**
     * Re-draws the picture from a CSV of an earlier run: -Dcurve.csv=docs/images/throughput-vs-rtt.csv.
     * -Dmirror.csv=docs/images/mm2-replication.csv adds MirrorMakerLabIT's replication points (its
     * line_mbit column, where present, is the line's rate: a point of a 50 Mbit/s line is no point on
     * this 200 Mbit/s curve).
     */
    @Test
    void consumeThroughputAgainstRtt() throws Exception {
        BenchmarkJit.requireFullJit();
        String csvInput = System.getProperty("curve.csv");
        List<double[]> rows = readCsv(csvInput);
        for (int rtt : csvInput != null ? new int[0] : RTT_MS) {
            KernelLab lab = LAB.start(KernelLab.builder()
                    .link(Link.rtt(Duration.ofMillis(rtt)).rateMbit(200))
                    .serverSysctl("net.ipv4.tcp_wmem", "4096 16384 33554432")
                    .serverSysctl("net.ipv4.tcp_slow_start_after_idle", 0));
            try (KafkaBroker broker = KafkaBroker.start(
                    lab, Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"))) {
                ProbeTopics.fill(broker, "curve", 200);
                LabDoctor.Run run = LabDoctor.run(
                        Duration.ofMinutes(3),
                        "--bootstrap-server",
                        broker.bootstrapServers(),
                        "--set",
                        "tcpsight.target.throughput.mbit=200",
                        "--probe-topic",
                        "curve",
                        "--probe-seconds",
                        "6");
                Map<String, Double> rates = ProbeTopics.probeRates(run.out());
                double[] row = new double[VARIANTS.length + 1];
                row[0] = rtt;
                for (int i = 0; i < VARIANTS.length; i++) {
                    row[i + 1] = ProbeTopics.rate(rates, VARIANTS[i]);
                }
                rows.add(row);
                System.out.printf(Locale.ROOT, "RTT %d ms: %.1f / %.1f / %.1f Mbit/s%n", rtt, row[1], row[2], row[3]);
            }
            LAB.closeAll();
        }
        StringBuilder csv = new StringBuilder("rtt_ms,rcvbuf_65536_mbit,autotuned_mbit,tcpsight_mbit\n");
        StringBuilder table = new StringBuilder("| RTT | 65536 | -1 | tcpsight |\n|---:|---:|---:|---:|\n");
        for (double[] row : rows) {
            csv.append(String.format(Locale.ROOT, "%.0f,%.1f,%.1f,%.1f%n", row[0], row[1], row[2], row[3]));
            table.append(String.format(
                    Locale.ROOT,
                    "| %.0f ms | %.1f Mbit/s | %.1f Mbit/s | %.1f Mbit/s |%n",
                    row[0],
                    row[1],
                    row[2],
                    row[3]));
        }
        Path target = Path.of("target");
        Files.writeString(target.resolve("throughput-vs-rtt.csv"), csv, StandardCharsets.UTF_8);
        List<double[]> mirror = readCsv(System.getProperty("mirror.csv"));
        Files.writeString(target.resolve("throughput-vs-rtt.svg"), svg(rows, mirror), StandardCharsets.UTF_8);
        System.out.println(table);
    }

    /** The rows of a CSV with a header line, every cell a number; none without a file. */
    static List<double[]> readCsv(String file) throws IOException {
        List<double[]> rows = new ArrayList<>();
        if (file == null) {
            return rows;
        }
        List<String> lines = Files.readAllLines(Path.of(file));
        for (String line : lines.subList(1, lines.size())) {
            rows.add(Arrays.stream(line.split(","))
                    .mapToDouble(Double::parseDouble)
                    .toArray());
        }
        return rows;
    }

    /**
     * A plain SVG line chart: log RTT axis, linear Mbit/s axis. Replication points (RTT, Kafka's
     * defaults, tcpsight's placeholders) are squares in the colours of the matching curves.
     */
    static String svg(List<double[]> rows, List<double[]> mirror) {
        int width = 760;
        int height = 440;
        int left = 70;
        int right = 20;
        int top = 50;
        int bottom = 60;
        double minX = Math.log10(1);
        double maxX = Math.log10(200);
        double maxY = 200;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
                        + "font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
                width,
                height));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">Kafka consume throughput against "
                        + "RTT, 200 Mbit/s link (tcpsight doctor probe, kernel lab)</text>%n",
                left));
        double plotWidth = width - left - right;
        double plotHeight = height - top - bottom;
        DoubleUnaryOperator xOfRtt = rtt -> left + (Math.log10(rtt) - minX) / (maxX - minX) * plotWidth;
        DoubleUnaryOperator yOfMbit = mbit -> top + plotHeight - Math.min(mbit, maxY) / maxY * plotHeight;
        for (int y = 0; y <= 200; y += 50) {
            double py = yOfMbit.applyAsDouble(y);
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n",
                    left,
                    py,
                    width - right,
                    py));
            svg.append(String.format(
                    Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d</text>%n", left - 6, py + 4, y));
        }
        for (int x : RTT_MS) {
            double px = xOfRtt.applyAsDouble(x);
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>%n",
                    px,
                    top,
                    px,
                    top + plotHeight));
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>%n",
                    px,
                    top + plotHeight + 16,
                    x));
        }
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">RTT (ms, log scale)</text>%n",
                left + plotWidth / 2,
                height - 22));
        svg.append(String.format(
                Locale.ROOT,
                "<text transform=\"translate(18,%.1f) rotate(-90)\" text-anchor=\"middle\">Mbit/s</text>%n",
                top + plotHeight / 2));
        for (int series = 0; series < VARIANTS.length; series++) {
            StringBuilder points = new StringBuilder();
            for (double[] row : rows) {
                double px = xOfRtt.applyAsDouble(row[0]);
                double py = yOfMbit.applyAsDouble(row[series + 1]);
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
                svg.append(String.format(
                        Locale.ROOT,
                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n",
                        px,
                        py,
                        COLORS[series]));
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n",
                    COLORS[series],
                    points.toString().strip()));
            // top right: above every measured point there (nothing reaches 160 Mbit/s beyond 10 ms)
            double legendX = width - right - 350;
            double legendY = top + 16 + series * 18;
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"3\" fill=\"%s\"/>%n",
                    legendX,
                    legendY - 4,
                    COLORS[series]));
            svg.append(String.format(
                    Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\">%s</text>%n", legendX + 20, legendY, LABELS[series]));
        }
        for (double[] point : mirror) {
            double px = xOfRtt.applyAsDouble(point[0]);
            for (int series = 1; series <= 2; series++) {
                double py = yOfMbit.applyAsDouble(point[series]);
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" fill=\"none\" stroke=\"%s\""
                                + " stroke-width=\"2\"/>%n",
                        px - 4.5,
                        py - 4.5,
                        COLORS[series == 1 ? 0 : 2]));
            }
        }
        if (!mirror.isEmpty()) {
            double legendX = width - right - 350;
            double legendY = top + 16 + VARIANTS.length * 18;
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" fill=\"none\" stroke=\"#555\""
                            + " stroke-width=\"2\"/>%n",
                    legendX + 2,
                    legendY - 8));
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%.1f\">MM2 replication (MirrorMakerLabIT): defaults, placeholders</text>%n",
                    legendX + 20,
                    legendY));
        }
        return svg.append("</svg>\n").toString();
    }
}
