package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.ConnectionView;
import io.tcpsight.lab.DashboardQueries;
import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KafkaHello;
import io.tcpsight.lab.Kcat;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabHeap;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.LabRounds;
import io.tcpsight.lab.PrometheusServer;
import io.tcpsight.lab.PrometheusText;
import io.tcpsight.lab.RttBuckets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The agent's exposition at fleet scale, read by a real Prometheus: hundreds of distinct
 * client.ids (librdkafka's kcat among them) do not add series, every dashboard query answers,
 * the RTT quantile is the kernel's, and thousands of fresh client.ids leave nothing behind.
 */
// runs nothing across the delay line: may run beside the lab classes (HostCpu)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class MetricsAtScaleIT {
    private static final String JOB = "tcpsight-agent";
    private static final int KCAT_CONSUMERS = 20;
    private static final int HELLO_CLIENTS = 400;
    /** The goal for 10,000 connections from 5,000 client.ids, held here at a few hundred. */
    private static final int SERIES_GOAL = 2000;

    @Test
    void hundredsOfClientIdsIncludingKcatAddNoSeriesAndEveryDashboardQueryAnswers() throws Exception {
        LabPrerequisites.requireCommand(
                "kcat", "kcat, a librdkafka client (apt-get install kcat)"); // before the broker
        try (KafkaBroker broker = KafkaBroker.onLoopback()
                        .shortLivedJvm()
                        .agent("interval=1s")
                        .start();
                Traffic traffic = Traffic.start(broker, "load")) {
            List<LabProcess> kcats = new ArrayList<>();
            List<KafkaHello> hellos = new ArrayList<>();
            try {
                for (int i = 0; i < KCAT_CONSUMERS; i++) {
                    kcats.add(Kcat.consumer(
                            "kcat-" + ProcessHandle.current().pid() + "-" + i,
                            broker.bootstrapServers(),
                            "load",
                            "client.id=kcat-consumer-" + i,
                            "socket.receive.buffer.bytes=65536"));
                }
                for (int i = 0; i < HELLO_CLIENTS; i++) {
                    hellos.add(KafkaHello.connect(broker.bootstrapServers(), "app-" + i));
                }
                Set<String> clientIds = LabAwait.await("the agent naming the kcat and hello clients")
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> {
                            Set<String> named = new HashSet<>();
                            for (ConnectionView connection :
                                    ConnectionView.list(broker.agentGet("/connections?top=1000"))) {
                                named.add(connection.clientId());
                            }
                            long kcatNamed = named.stream()
                                    .filter(id -> id != null && id.startsWith("kcat-consumer-"))
                                    .count();
                            return named.size() >= HELLO_CLIENTS + KCAT_CONSUMERS && kcatNamed == KCAT_CONSUMERS
                                    ? named
                                    : null;
                        });
                String scrape = broker.agentGet("/metrics");
                int series = series(scrape);
                long perClient = scrape.lines()
                        .filter(line -> line.contains("client_id="))
                        .count();
                System.out.printf(
                        "%d distinct client.ids (%d kcat): %d series, %d of them per client (the worst-connections"
                                + " table), %d bytes%n",
                        clientIds.size(), KCAT_CONSUMERS, series, perClient, scrape.length());
                assertTrue(series < SERIES_GOAL, series + " series");
                assertTrue(
                        perClient <= 10 * 5,
                        perClient + " per-client series: at most 10 rows of 5 gauges:\n"
                                + scrape.lines()
                                        .filter(line -> line.contains("client_id="))
                                        .collect(Collectors.joining("\n")));
                assertEquals("", PrometheusServer.lint(scrape), "promtool check metrics");

                try (PrometheusServer prometheus =
                        PrometheusServer.scraping(Map.of(JOB, broker.agentUrl() + "/metrics"))) {
                    DashboardQueries.assertEveryQueryAnswers(
                            prometheus, JOB, "broker-agent.json", "kafka-clients.json");
                    double median = prometheus
                            .query(
                                    "histogram_quantile(0.5, sum by (le) (rate(tcpsight_connection_rtt_seconds_bucket{job=\""
                                            + JOB + "\"}[1m])))")
                            .get(0)
                            .value();
                    double kernelMedian = kernelMedianRttSeconds(broker);
                    System.out.printf("loopback RTT median: Prometheus %.6f s, kernel %.6f s%n", median, kernelMedian);
                    assertTrue(median < 0.001, "a loopback RTT is well under 1 ms: " + median);
                    RttBuckets.assertWithinOneBucket(median, kernelMedian);
                }
            } finally {
                kcats.forEach(LabProcess::close);
                for (KafkaHello hello : hellos) {
                    hello.close();
                }
            }
        }
    }

    @Test
    void thousandsOfFreshClientIdsLeaveSeriesScrapeAndHeapFlat() throws Exception {
        int batches = 15;
        int perBatch = 200;
        try (KafkaBroker broker =
                KafkaBroker.onLoopback().shortLivedJvm().agent("interval=500ms").start()) {
            long[] earlySeries = null;
            long[] lastSeries = null;
            long earlyObjects = 0;
            long earlyBytes = 0;
            long lastObjects = 0;
            long start = System.nanoTime();
            for (int batch = 1; batch <= batches; batch++) {
                List<KafkaHello> hellos = new ArrayList<>();
                for (int i = 0; i < perBatch; i++) {
                    hellos.add(KafkaHello.connect(broker.bootstrapServers(), "random-" + UUID.randomUUID()));
                }
                awaitSampled(broker, perBatch);
                long[] during = {
                    series(broker.agentGet("/metrics")),
                    broker.agentGet("/metrics").length()
                };
                for (KafkaHello hello : hellos) {
                    hello.close();
                }
                LabAwait.await("the batch's connections released")
                        .atMost(Duration.ofSeconds(15))
                        .untilTrue(() -> ConnectionView.list(broker.agentGet("/connections?top=1000"))
                                        .size()
                                < perBatch / 2);
                if (batch == 3) {
                    earlySeries = during;
                    LabHeap early = LabHeap.read(broker.process());
                    earlyObjects = early.instances(TRACKED_CONNECTION);
                    earlyBytes = early.bytes();
                }
                lastSeries = during;
            }
            LabHeap last = LabHeap.read(broker.process());
            lastObjects = last.instances(TRACKED_CONNECTION);
            long lastBytes = last.bytes();
            System.out.printf(
                    "%d connect/close cycles with fresh client.ids in %.1f s: series %d -> %d, scrape %d -> %d bytes,"
                            + " TrackedConnection objects %d -> %d, live heap %.1f -> %.1f MB (the broker's, after full"
                            + " GCs)%n",
                    batches * perBatch,
                    (System.nanoTime() - start) / 1e9,
                    earlySeries[0],
                    lastSeries[0],
                    earlySeries[1],
                    lastSeries[1],
                    earlyObjects,
                    lastObjects,
                    earlyBytes / 1e6,
                    lastBytes / 1e6);
            assertTrue(lastSeries[0] <= earlySeries[0] + 5, "series flat: " + earlySeries[0] + " -> " + lastSeries[0]);
            assertTrue(
                    lastSeries[1] <= earlySeries[1] * 1.1,
                    "scrape size flat: " + earlySeries[1] + " -> " + lastSeries[1]);
            assertTrue(lastObjects <= earlyObjects + 2, "heap flat: " + earlyObjects + " -> " + lastObjects);
        }
    }

    /**
     * A big broker: 15,000 idle connections from 3,000 client.ids, every one tracked, the round's
     * duration reported, the series bounded, and its one listener watched and not called overflowing
     * (the connects came one after another). Kafka opens its listener after the agent's first look,
     * so the listener is found by what it accepts (ListenerCensus). What a round costs here is
     * RoundCostBenchmark's figure, not a bound of this test.
     */
    @Test
    void fifteenThousandIdleConnectionsAreEveryOneTrackedWithBoundedSeriesAndTheListenerWatched() throws Exception {
        int connections = 15_000;
        List<KafkaHello> hellos = new ArrayList<>();
        try (KafkaBroker broker =
                KafkaBroker.onLoopback().shortLivedJvm().agent("interval=1s").start()) {
            try {
                for (int i = 0; i < connections; i++) {
                    hellos.add(KafkaHello.connect(broker.bootstrapServers(), "app-" + i % 3_000));
                }
                String scrape = LabAwait.await("every connection tracked and a round over them all")
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> {
                            String now = broker.agentGet("/metrics");
                            return PrometheusText.sample(now, "tcpsight_connections") >= connections
                                            && PrometheusText.sum(
                                                            now,
                                                            "tcpsight_listener_backlog_connections",
                                                            Map.of("listener", "PLAINTEXT"))
                                                    > 0
                                    ? now
                                    : null;
                        });
                LabRounds.awaitMore("the agent", () -> broker.agentGet("/metrics"), 2);
                scrape = broker.agentGet("/metrics");
                int series = series(scrape);
                double rounds = PrometheusText.sample(scrape, "tcpsight_round_duration_seconds_count");
                double roundSeconds = PrometheusText.sample(scrape, "tcpsight_round_duration_seconds_max");
                List<FindingView> overflows = FindingView.list(broker.agentGet("/findings")).stream()
                        .filter(finding -> finding.is("listen-backlog-overflow"))
                        .collect(Collectors.toList());
                System.out.printf(
                        "%d connections: tracked %.0f, refused %.0f, %d series, %.0f rounds (the longest %.1f ms),"
                                + " PLAINTEXT backlog %.0f, overflow findings %s%n",
                        connections,
                        PrometheusText.sample(scrape, "tcpsight_connections"),
                        PrometheusText.sample(scrape, "tcpsight_connections_refused"),
                        series,
                        rounds,
                        roundSeconds * 1e3,
                        PrometheusText.sum(
                                scrape, "tcpsight_listener_backlog_connections", Map.of("listener", "PLAINTEXT")),
                        overflows);
                assertTrue(PrometheusText.sample(scrape, "tcpsight_connections") >= connections, "every one tracked");
                assertEquals(0, PrometheusText.sample(scrape, "tcpsight_connections_refused"), "none refused");
                assertTrue(rounds > 0 && roundSeconds > 0, "the round's duration reported");
                assertTrue(series < SERIES_GOAL, series + " series for " + connections + " connections");
                assertTrue(overflows.isEmpty(), "no listener overflowed: " + overflows);
            } finally {
                for (KafkaHello hello : hellos) {
                    hello.close();
                }
            }
        }
    }

    private static final String TRACKED_CONNECTION = "io.tcpsight.shaded.sampling.TrackedConnection";

    /** Until a sampling round has seen at least {@code count} hello connections (they have RTTs). */
    private static void awaitSampled(KafkaBroker broker, int count) {
        LabAwait.await(count + " hello connections sampled")
                .atMost(Duration.ofSeconds(15))
                .untilTrue(() -> ConnectionView.list(broker.agentGet("/connections?top=1000")).stream()
                                .filter(connection -> connection.clientId() != null
                                        && connection.clientId().startsWith("random-")
                                        && connection.tcpInfo() != null)
                                .count()
                        >= count);
    }

    private static int series(String scrape) {
        return (int) scrape.lines()
                .filter(line -> !line.startsWith("#") && !line.isBlank())
                .count();
    }

    private static double kernelMedianRttSeconds(KafkaBroker broker) throws Exception {
        List<Double> rtts = new ArrayList<>();
        for (ConnectionView connection : ConnectionView.list(broker.agentGet("/connections?top=1000"))) {
            if (connection.tcpInfo() != null) {
                rtts.add(connection.tcpInfo().rttMs() / 1000);
            }
        }
        rtts.sort(Double::compare);
        return rtts.get(rtts.size() / 2);
    }

    /** A producer that keeps records flowing, so that the consumers' connections are busy. */
    private static final class Traffic implements AutoCloseable {
        private final AtomicBoolean running;
        private final Thread thread;

        private Traffic(AtomicBoolean running, Thread thread) {
            this.running = running;
            this.thread = thread;
        }

        static Traffic start(KafkaBroker broker, String topic) throws Exception {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
            }
            Properties config = new Properties();
            config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            config.put(ProducerConfig.CLIENT_ID_CONFIG, "traffic");
            KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
            AtomicBoolean running = new AtomicBoolean(true);
            Thread thread = new Thread(() -> {
                try {
                    byte[] value = new byte[20_000];
                    while (running.get()) {
                        producer.send(new ProducerRecord<>(topic, value));
                        Thread.sleep(10);
                    }
                } catch (InterruptedException stopped) {
                    Thread.currentThread().interrupt();
                } finally {
                    // what is unsent is nobody's: a close that waited for it retried against a broker the
                    // test had already stopped, for the two minutes of delivery.timeout.ms
                    producer.close(Duration.ZERO);
                }
            });
            thread.start();
            return new Traffic(running, thread);
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(10_000);
        }
    }
}
