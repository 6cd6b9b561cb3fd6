package io.tcpsight.connect.internal.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.tcpsight.connect.internal.provider.ClusterAccess;
import io.tcpsight.connect.internal.provider.ClusterTuning;
import io.tcpsight.connect.internal.provider.ProvidedSettings;
import io.tcpsight.connect.internal.settings.ConnectSettings;
import io.tcpsight.internal.tuning.BdpSettings;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.connect.health.ConnectClusterState;
import org.apache.kafka.connect.health.ConnectorHealth;
import org.apache.kafka.connect.health.ConnectorState;
import org.apache.kafka.connect.health.ConnectorType;
import org.apache.kafka.connect.health.TaskState;
import org.junit.jupiter.api.Test;

/**
 * Re-adaptation restarts only this worker's tasks (found from its real Kafka clients in JMX), and
 * once per drift. The cluster state and the REST API stand in for a worker here; the lab's Connect
 * tests run the real ones.
 */
class ReadaptationTest {
    @Test
    void theRestUrlComesFromTheFirstListenerWithWildcardsOnLoopback() {
        assertEquals(URI.create("http://127.0.0.1:8083"), Readaptation.restUrl(Map.of(), ""));
        assertEquals(
                URI.create("http://127.0.0.1:8084"),
                Readaptation.restUrl(Map.of("listeners", "http://0.0.0.0:8084,https://x:9"), ""));
        assertEquals(
                URI.create("https://worker-1:8443"),
                Readaptation.restUrl(Map.of("listeners", "https://worker-1:8443"), ""));
        assertEquals(
                URI.create("http://elsewhere:1"),
                Readaptation.restUrl(Map.of("listeners", "http://a:2"), "http://elsewhere:1"));
    }

    @Test
    void aDriftRestartsThisWorkersTasksOfTcpsightConnectorsOnce() throws Exception {
        List<String> posted = Collections.synchronizedList(new ArrayList<>());
        HttpServer rest = connectRest(posted);
        List<KafkaConsumer<byte[], byte[]>> clients = new ArrayList<>();
        try (ServerSocket cluster = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            acceptForever(cluster);
            // The tasks were built for a 100 ms path; the cluster is now on loopback.
            ClusterTuning tuning = builtFor100Ms(cluster);
            // Tasks 0 and 2 of "orders" and task 1 of "plain" run here; "elsewhere" runs on other workers.
            for (String clientId : List.of(
                    "connector-consumer-orders-0", "connector-consumer-orders-2", "connector-consumer-plain-1")) {
                clients.add(consumer(clientId));
            }
            Readaptation readaptation = new Readaptation(
                    tuning,
                    2,
                    URI.create("http://127.0.0.1:" + rest.getAddress().getPort()),
                    () -> new ClusterWith(Map.of(
                            "orders", Map.of("consumer.override.fetch.max.bytes", "${tcpsight:fetch:fetch.max.bytes}"),
                            "plain", Map.of("topics", "x"),
                            "elsewhere",
                                    Map.of(
                                            "consumer.override.max.poll.records",
                                            "${tcpsight:fetch:max.poll.records}"))));

            List<String> measured = readaptation.check();
            List<String> first = readaptation.check();
            List<String> second = readaptation.check();

            assertEquals(List.of(), measured, "a first measurement waits for a second that agrees");
            assertEquals(List.of("orders/0", "orders/2"), first);
            assertEquals(
                    List.of("POST /connectors/orders/tasks/0/restart", "POST /connectors/orders/tasks/2/restart"),
                    posted);
            assertEquals(List.of(), second, "the same drift is acted on once");
        } finally {
            clients.forEach(KafkaConsumer::close);
            rest.stop(0);
        }
    }

    /**
     * A drift seen while no task of ours has its client here (a task between two builds, built
     * meanwhile with the old values) stays standing: the check after the task's client is back
     * restarts it, where marking the drift dealt with would leave it on the old values for good.
     */
    @Test
    void aDriftSeenWhileNoTaskIsHereIsActedOnOnceTheTaskIsBack() throws Exception {
        List<String> posted = Collections.synchronizedList(new ArrayList<>());
        HttpServer rest = connectRest(posted);
        try (ServerSocket cluster = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            acceptForever(cluster);
            ClusterTuning tuning = builtFor100Ms(cluster);
            Readaptation readaptation = new Readaptation(
                    tuning,
                    2,
                    URI.create("http://127.0.0.1:" + rest.getAddress().getPort()),
                    () -> new ClusterWith(Map.of(
                            "drift",
                            Map.of("consumer.override.fetch.max.bytes", "${tcpsight:fetch:fetch.max.bytes}"))));

            assertEquals(List.of(), readaptation.check(), "a first measurement waits for a second that agrees");
            List<String> whileAway = readaptation.check(); // a confirmed drift, and no task of ours here
            List<String> back;
            try (KafkaConsumer<byte[], byte[]> task = consumer("connector-consumer-drift-1")) {
                back = readaptation.check();
            }

            assertEquals(List.of(), whileAway, "no task of ours here");
            assertEquals(List.of("drift/1"), back, "the drift still stood");
            assertEquals(List.of("POST /connectors/drift/tasks/1/restart"), posted);
        } finally {
            rest.stop(0);
        }
    }

    /**
     * In a real three-worker cluster a task was built with the old values (handed out stale while
     * the new measurement ran), and then the connector, rebuilt on the same worker, got the new
     * ones. That task must still be restarted; a task built later with the new values must not be,
     * though the old values were in force when its build window opened. Each is compared
     * with what was handed out when its own clients were built (a build lead of 200 ms here).
     */
    @Test
    void eachTaskIsComparedWithWhatItWasBuiltWithNotWithTheLastHandOut() throws Exception {
        Duration lead = Duration.ofMillis(200);
        List<String> posted = Collections.synchronizedList(new ArrayList<>());
        HttpServer rest = connectRest(posted);
        List<KafkaConsumer<byte[], byte[]>> clients = new ArrayList<>();
        try (ServerSocket cluster = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            acceptForever(cluster);
            ClusterTuning tuning = new ClusterTuning();
            Map<String, String> params = Map.of("bootstrap.servers", "127.0.0.1:" + cluster.getLocalPort());
            tuning.configure(
                    ConnectSettings.from(params, ConnectSettings.PROVIDER_KEYS), ClusterAccess.fromParams(params));
            tuning.handedOut(Instant.now(), adviceFor(100_000)); // task 0's build, stale
            clients.add(consumer("connector-consumer-race-0"));
            Instant first = LocalTasks.read().get("race").get(0).orElseThrow();
            Thread.sleep(lead.toMillis() + 100);
            // Later, the connector and task 1 are built with the fresh values; until then the old ones were in force.
            tuning.handedOut(Instant.now(), adviceFor(100));
            clients.add(consumer("connector-consumer-race-1"));
            Instant second = LocalTasks.read().get("race").get(1).orElseThrow();
            assertTrue(second.isAfter(first.plus(lead)), first + ", " + second);
            Readaptation readaptation = new Readaptation(
                    tuning,
                    2,
                    URI.create("http://127.0.0.1:" + rest.getAddress().getPort()),
                    () -> new ClusterWith(Map.of(
                            "race",
                            Map.of(
                                    "consumer.override.max.partition.fetch.bytes",
                                    "${tcpsight:fetch:max.partition.fetch.bytes}"))),
                    lead);

            assertEquals(List.of(), readaptation.check(), "a first measurement waits for a second that agrees");
            List<String> restarted = readaptation.check();

            assertEquals(List.of("race/0"), restarted, "only the task built with the 100 ms values");
            assertEquals(List.of("POST /connectors/race/tasks/0/restart"), posted);
        } finally {
            clients.forEach(KafkaConsumer::close);
            rest.stop(0);
        }
    }

    /**
     * Connect rebuilds a task inside the restart call. A task rebuilt there with the old values
     * again (a stale hand-out) is restarted at the next check; once rebuilt with the new ones, it is
     * left alone.
     */
    @Test
    void aTaskRebuiltInsideTheRestartCallIsComparedAgainWithWhatItWasRebuiltWith() throws Exception {
        ClusterTuning[] tuning = new ClusterTuning[1];
        AtomicReference<Supplier<ProvidedSettings>> rebuildWith = new AtomicReference<>();
        AtomicReference<KafkaConsumer<byte[], byte[]>> task = new AtomicReference<>();
        List<String> posted = Collections.synchronizedList(new ArrayList<>());
        HttpServer rest = rebuildingRest(
                posted,
                task,
                "connector-consumer-again-0",
                () -> tuning[0].handedOut(Instant.now(), rebuildWith.get().get()));
        try (ServerSocket cluster = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            acceptForever(cluster);
            tuning[0] = builtFor100Ms(cluster);
            task.set(consumer("connector-consumer-again-0"));
            Readaptation readaptation = new Readaptation(
                    tuning[0],
                    2,
                    URI.create("http://127.0.0.1:" + rest.getAddress().getPort()),
                    () -> new ClusterWith(Map.of(
                            "again",
                            Map.of("consumer.override.fetch.max.bytes", "${tcpsight:fetch:fetch.max.bytes}"))));

            rebuildWith.set(() -> adviceFor(100_000));
            assertEquals(List.of(), readaptation.check(), "a first measurement waits for a second that agrees");
            List<String> first = readaptation.check();
            Thread.sleep(5); // the next check's restart in a later millisecond than this rebuild
            rebuildWith.set(tuning[0]::handOut);
            List<String> second = readaptation.check();
            List<String> third = readaptation.check();

            assertEquals(List.of("again/0"), first);
            assertEquals(List.of("again/0"), second, "rebuilt with the old values again: restarted again");
            assertEquals(List.of(), third, "rebuilt with the new values: left alone");
            assertEquals(2, posted.size(), posted.toString());
        } finally {
            if (task.get() != null) {
                task.get().close();
            }
            rest.stop(0);
        }
    }

    /**
     * As in the lab: a worker measured 100 ms, then 11.75 ms while the line's delay went from 100 to
     * 2 ms, then about 2 ms. Acting on the reading across the change restarted the task for 11.75 ms,
     * and again for 2 ms; a drift is acted on once two checks in a row agree, so the task is restarted
     * once, for the path as it now is.
     */
    @Test
    void aMeasurementAcrossAPathChangeRestartsNothingUntilTheNextCheckAgrees() throws Exception {
        ClusterTuning[] tuning = new ClusterTuning[1];
        Deque<ProvidedSettings> measurements = new ArrayDeque<>(
                List.of(adviceFor(100_000), adviceFor(11_750), adviceFor(1_850), adviceFor(1_630), adviceFor(1_700)));
        AtomicReference<ProvidedSettings> measured = new AtomicReference<>();
        AtomicReference<KafkaConsumer<byte[], byte[]>> task = new AtomicReference<>();
        List<String> posted = Collections.synchronizedList(new ArrayList<>());
        // the rebuilt task resolves its config with the advice just measured
        HttpServer rest = rebuildingRest(
                posted, task, "connector-consumer-change-0", () -> tuning[0].handedOut(Instant.now(), measured.get()));
        try (ServerSocket cluster = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            tuning[0] = builtFor100Ms(cluster);
            task.set(consumer("connector-consumer-change-0"));
            Readaptation readaptation = new Readaptation(
                    tuning[0],
                    () -> {
                        measured.set(measurements.removeFirst());
                        return measured.get();
                    },
                    2,
                    URI.create("http://127.0.0.1:" + rest.getAddress().getPort()),
                    () -> new ClusterWith(Map.of(
                            "change",
                            Map.of("consumer.override.fetch.max.bytes", "${tcpsight:fetch:fetch.max.bytes}"))),
                    Readaptation.BUILD_LEAD);

            List<List<String>> checks = new ArrayList<>();
            while (!measurements.isEmpty()) {
                checks.add(readaptation.check());
                Thread.sleep(5); // a rebuild and the next check's restart in different milliseconds
            }

            assertTrue(
                    adviceFor(11_750).driftFrom(adviceFor(100_000)) > 2
                            && adviceFor(1_850).driftFrom(adviceFor(11_750)) > 2,
                    "each reading across the change is a drift of its own");
            assertEquals(
                    List.of(List.of(), List.of(), List.of(), List.of("change/0"), List.of()),
                    checks,
                    "100 ms, 11.75 ms across the change, 1.85, 1.63 and 1.70 ms");
            assertEquals(List.of("/connectors/change/tasks/0/restart"), posted);
        } finally {
            if (task.get() != null) {
                task.get().close();
            }
            rest.stop(0);
        }
    }

    /**
     * Two checks agree within the factor itself, not a fixed ratio: at a factor of 10, 20 ms and then
     * 5 ms (values 4x apart) agree, and the drift of 5 ms's values from the 100 ms build (16x)
     * restarts the task at the second check; 20 ms's alone (4.4x) restarts nothing.
     */
    @Test
    void twoChecksAgreeWithinTheConfiguredFactor() throws Exception {
        Deque<ProvidedSettings> measurements = new ArrayDeque<>(List.of(adviceFor(20_000), adviceFor(5_000)));
        List<String> posted = Collections.synchronizedList(new ArrayList<>());
        HttpServer rest = connectRest(posted);
        try (ServerSocket cluster = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                KafkaConsumer<byte[], byte[]> task = consumer("connector-consumer-wide-0")) {
            Readaptation readaptation = new Readaptation(
                    builtFor100Ms(cluster),
                    measurements::removeFirst,
                    10,
                    URI.create("http://127.0.0.1:" + rest.getAddress().getPort()),
                    () -> new ClusterWith(Map.of(
                            "wide", Map.of("consumer.override.fetch.max.bytes", "${tcpsight:fetch:fetch.max.bytes}"))),
                    Readaptation.BUILD_LEAD);

            List<List<String>> checks = List.of(readaptation.check(), readaptation.check());

            double apart = adviceFor(5_000).driftFrom(adviceFor(20_000));
            assertTrue(apart > 2 && apart <= 10, "the two readings are " + apart + "x apart");
            assertTrue(adviceFor(20_000).driftFrom(adviceFor(100_000)) <= 10, "20 ms alone drifts too little");
            assertTrue(adviceFor(5_000).driftFrom(adviceFor(100_000)) > 10, "5 ms drifts past the factor");
            assertEquals(List.of(List.of(), List.of("wide/0")), checks);
            assertEquals(List.of("POST /connectors/wide/tasks/0/restart"), posted);
        } finally {
            rest.stop(0);
        }
    }

    /**
     * A task whose client has metrics but no app-info yet (Kafka registers it at the end of the
     * constructor) is left for the next check; still without one then, it is compared with every
     * advice handed out.
     */
    @Test
    void aTaskWithoutAStartTimeIsJudgedAtTheNextCheckAgainstEveryHandOut() throws Exception {
        List<String> posted = Collections.synchronizedList(new ArrayList<>());
        HttpServer rest = connectRest(posted);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName metrics = new ObjectName("kafka.consumer:type=consumer-metrics,client-id=connector-consumer-bare-0");
        try (ServerSocket cluster = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            acceptForever(cluster);
            Readaptation readaptation = new Readaptation(
                    builtFor100Ms(cluster),
                    2,
                    URI.create("http://127.0.0.1:" + rest.getAddress().getPort()),
                    () -> new ClusterWith(Map.of(
                            "bare", Map.of("consumer.override.fetch.max.bytes", "${tcpsight:fetch:fetch.max.bytes}"))));
            // a first measurement, before the task's client exists: the drift is confirmed from the next check on
            assertEquals(List.of(), readaptation.check());
            server.registerMBean(new StandardMBean(new Bare(), BareMBean.class), metrics);

            assertEquals(Optional.empty(), LocalTasks.read().get("bare").get(0), "no app-info, no start time");
            List<String> first = readaptation.check();
            List<String> second = readaptation.check();

            assertEquals(List.of(), first, "perhaps still being built");
            assertEquals(List.of("bare/0"), second);
        } finally {
            server.unregisterMBean(metrics);
            rest.stop(0);
        }
    }

    /** A client's metrics MBean and nothing else. */
    public interface BareMBean {
        int getConnectionCount();
    }

    /**
     * A task Connect records on another worker is that worker's to restart, even while this
     * worker's JMX still shows its clients; unknown either side, it counts as here, as before.
     */
    @Test
    void aTaskConnectRecordsOnAnotherWorkerIsNotRestartedHere() {
        ConnectClusterState state = new ClusterWith(Map.of("drift-sink", Map.of())) {
            @Override
            public ConnectorHealth connectorHealth(String connName) {
                return new ConnectorHealth(
                        connName,
                        new ConnectorState("RUNNING", "10.0.0.1:8083", null),
                        Map.of(
                                0, new TaskState(0, "RUNNING", "10.0.0.3:8083", null),
                                2, new TaskState(2, "RUNNING", "10.0.0.1:8083", null)),
                        ConnectorType.SINK);
            }
        };
        Optional<String> here = Optional.of("10.0.0.1:8083");

        assertFalse(Readaptation.runsHere(state, "drift-sink", 0, here), "moved to 10.0.0.3:8083");
        assertTrue(Readaptation.runsHere(state, "drift-sink", 2, here));
        assertTrue(Readaptation.runsHere(state, "drift-sink", 1, here), "no status recorded yet");
        assertTrue(Readaptation.runsHere(state, "drift-sink", 0, Optional.empty()), "this worker's id unknown");
        assertTrue(
                Readaptation.runsHere(new ClusterWith(Map.of()), "drift-sink", 0, here),
                "a cluster state that cannot answer");
    }

    private static final class Bare implements BareMBean {
        @Override
        public int getConnectionCount() {
            return 0;
        }
    }

    private static ProvidedSettings adviceFor(long rttMicros) {
        return ProvidedSettings.measured(
                BdpSettings.recommend(new BdpSettings.Input(rttMicros, 25e6, 1, null, null, 1024)),
                rttMicros,
                Instant.now());
    }

    /**
     * Connect's REST API rebuilding the task inside the restart call, as Connect does: every path is
     * recorded, the task's client stopped, its config resolved (a hand-out), its client built again
     * under the same client.id, and the call answered 204.
     */
    private static HttpServer rebuildingRest(
            List<String> posted, AtomicReference<KafkaConsumer<byte[], byte[]>> task, String clientId, Runnable resolve)
            throws IOException {
        HttpServer rest = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        rest.createContext("/connectors/", exchange -> {
            posted.add(exchange.getRequestURI().getPath());
            task.get().close();
            resolve.run();
            task.set(consumer(clientId));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        rest.start();
        return rest;
    }

    /** Connect's REST API as re-adaptation uses it: every call is recorded and answered 204. */
    private static HttpServer connectRest(List<String> posted) throws IOException {
        HttpServer rest = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        rest.createContext("/connectors/", exchange -> {
            posted.add(
                    exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        rest.start();
        return rest;
    }

    /** The provider of a worker whose tasks were built with the values for a 100 ms path to this cluster. */
    private static ClusterTuning builtFor100Ms(ServerSocket cluster) {
        ClusterTuning tuning = new ClusterTuning();
        Map<String, String> params = Map.of("bootstrap.servers", "127.0.0.1:" + cluster.getLocalPort());
        tuning.configure(ConnectSettings.from(params, ConnectSettings.PROVIDER_KEYS), ClusterAccess.fromParams(params));
        tuning.handedOut(Instant.now(), adviceFor(100_000));
        return tuning;
    }

    /** A Connect task's consumer as the worker builds it; its metrics are in JMX at once, no broker needed. */
    private static KafkaConsumer<byte[], byte[]> consumer(String clientId) {
        Properties config = new Properties();
        config.put("bootstrap.servers", "127.0.0.1:1");
        config.put("client.id", clientId);
        config.put("group.id", "connect-" + clientId);
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static void acceptForever(ServerSocket listener) {
        Thread acceptor = new Thread(() -> {
            while (!listener.isClosed()) {
                try (Socket accepted = listener.accept()) {
                    // a live cluster address to measure
                } catch (IOException closed) {
                    return;
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private static class ClusterWith implements ConnectClusterState {
        private final Map<String, Map<String, String>> configs;

        ClusterWith(Map<String, Map<String, String>> configs) {
            this.configs = configs;
        }

        @Override
        public Collection<String> connectors() {
            return new TreeSet<>(configs.keySet());
        }

        @Override
        public ConnectorHealth connectorHealth(String connName) {
            throw new UnsupportedOperationException("re-adaptation reads only connectors and configs");
        }

        @Override
        public Map<String, String> connectorConfig(String connName) {
            return configs.get(connName);
        }
    }
}
