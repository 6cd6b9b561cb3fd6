package io.tcpsight.internal.export;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.LoopbackConnections;
import io.tcpsight.internal.tcp.TcpSockets;
import java.io.ByteArrayOutputStream;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Prometheus exposition of real loopback connections: its size and its buckets. */
class BoundedExpositionTest {

    @Test
    void theSeriesCountDoesNotGrowWithClientsOrConnections() throws Exception {
        int few = seriesAfterTwoRounds(10);
        int many = seriesAfterTwoRounds(300);
        assertEquals(few, many, "10 and 300 connections, each of its own client.id");
        assertTrue(many < 400, "series: " + many);
    }

    @Test
    void aLoopbackRttLandsInTheBucketsBelowOneMillisecond() throws Exception {
        String scrape = scrapeAfterTwoRounds(4, TcpsightConfig.defaults());
        double count = sample(scrape, "tcpsight_connection_rtt_seconds_count");
        assertEquals(8, count, "4 connections x 2 rounds");
        assertEquals(count, sample(scrape, "tcpsight_connection_rtt_seconds_bucket", "le=\"0.001\""), scrape);
    }

    /**
     * A connection is counted open under the tag set of its opening, and each round records it under the
     * tag set its identity has then: a listener or node.id learned after the opening moves its samples there.
     */
    @Test
    void aConnectionsSamplesGoUnderTheListenerItLearnedAfterItsOpeningWasCounted() throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(4);
        ConnectionMonitor monitor = ExportersTest.monitor(registry, TcpsightConfig.defaults(), List.of());
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new ConnectionMeters(monitor).bindTo(prometheus);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(1)) {
            ExportersTest.track(registry, loopback.clients.get(0), "client-0");
            TrackedConnection connection = registry.connections().get(0);
            monitor.round();
            connection.updateIdentity(identity -> identity.withNodeId("2"));
            monitor.round();
            connection.updateIdentity(identity -> identity.withListener("PLAINTEXT"));
            monitor.round();
            monitor.round();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        prometheus.scrape(out);
        String scrape = out.toString(StandardCharsets.UTF_8);
        String count = "tcpsight_connection_rtt_seconds_count";
        assertEquals(1, sample(scrape, count, "listener=\"unknown\"", "node_id=\"1\""), scrape);
        assertEquals(1, sample(scrape, count, "listener=\"unknown\"", "node_id=\"2\""), scrape);
        assertEquals(2, sample(scrape, count, "listener=\"PLAINTEXT\"", "node_id=\"2\""), scrape);
    }

    @Test
    void everyHistogramHasItsDomainsBucketsAndNoMore() throws Exception {
        String scrape = scrapeAfterTwoRounds(2, TcpsightConfig.defaults());
        assertArrayEquals(
                HistogramBuckets.RTT_SECONDS.bounds(), bounds(scrape, "tcpsight_connection_rtt_seconds"), 1e-12);
        assertArrayEquals(
                HistogramBuckets.BYTES.bounds(), bounds(scrape, "tcpsight_connection_window_ceiling_bytes"), 1e-6);
        for (HistogramBuckets buckets : HistogramBuckets.values()) {
            double[] bounds = buckets.bounds();
            assertTrue(bounds.length <= 27, buckets + " has " + bounds.length);
            for (int i = 1; i < bounds.length; i++) {
                assertTrue(bounds[i] > bounds[i - 1], buckets + " ascends at " + i);
            }
        }
        assertEquals(50e-6, HistogramBuckets.RTT_SECONDS.bounds()[0]);
        assertEquals(10, last(HistogramBuckets.RTT_SECONDS.bounds()));
        assertEquals(1024, HistogramBuckets.BYTES.bounds()[0]);
        assertEquals(256 << 20, last(HistogramBuckets.BYTES.bounds()));
        assertEquals(1e4, HistogramBuckets.BYTES_PER_SECOND.bounds()[0]);
        assertEquals(1e10, last(HistogramBuckets.BYTES_PER_SECOND.bounds()));
    }

    private static double last(double[] values) {
        return values[values.length - 1];
    }

    private static int seriesAfterTwoRounds(int connections) throws Exception {
        String scrape = scrapeAfterTwoRounds(connections, TcpsightConfig.defaults());
        return (int) scrape.lines()
                .filter(line -> !line.startsWith("#") && !line.isBlank())
                .count();
    }

    private static String scrapeAfterTwoRounds(int connections, TcpsightConfig config) throws Exception {
        ConnectionRegistry registry = new ConnectionRegistry(connections * 2);
        ConnectionMonitor monitor = ExportersTest.monitor(registry, config, List.of());
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new ConnectionMeters(monitor).bindTo(prometheus);
        try (LoopbackConnections loopback = LoopbackConnections.ipv4().pairs(connections)) {
            int i = 0;
            for (SocketChannel client : loopback.clients) {
                ExportersTest.track(registry, client, "client-" + i++);
            }
            monitor.round();
            monitor.round();
            for (SocketChannel client : loopback.clients) {
                registry.release(TcpSockets.fileDescriptor(client));
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        prometheus.scrape(out);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static double sample(String scrape, String name, String... labels) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                boolean all = true;
                for (String label : labels) {
                    all &= line.contains(label);
                }
                if (all) {
                    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        }
        throw new AssertionError(name + " " + List.of(labels) + " not in\n" + scrape);
    }

    private static double[] bounds(String scrape, String histogram) {
        Matcher matcher = Pattern.compile("(?m)^" + histogram + "_bucket\\{[^}]*le=\"([^\"]+)\"")
                .matcher(scrape);
        List<Double> bounds = new ArrayList<>();
        String firstSeries = null;
        while (matcher.find()) {
            String series = matcher.group().replaceAll("le=\"[^\"]+\"", "");
            if (firstSeries == null) {
                firstSeries = series;
            }
            if (series.equals(firstSeries) && !matcher.group(1).equals("+Inf")) {
                bounds.add(Double.parseDouble(matcher.group(1)));
            }
        }
        return bounds.stream().mapToDouble(Double::doubleValue).toArray();
    }
}
