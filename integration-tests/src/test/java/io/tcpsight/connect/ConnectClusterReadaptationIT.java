package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tcpsight.lab.ClientConfigDump;
import io.tcpsight.lab.DeliveryCheck;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabConnectWorker;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.Together;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Re-adaptation in a real three-worker Connect cluster, every worker with it on, its broker
 * across the kernel delay line. The line's RTT drops from 100 ms to 2 ms under running tasks: the
 * recommended fetch sizes drift far past the factor, and every task must be restarted exactly
 * once, by the worker it runs on, with every record delivered.
 */
// Its claims are restarts and the values each task was built with (a 100 ms path against a 2 ms one, fifty times
// apart), and its time goes to round trips and the checks' interval: it may run beside another lab class, each in
// its own lab, as VersionMatrixLabIT's releases do.
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class ConnectClusterReadaptationIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final String EXTENSION = "io.tcpsight.connect.TcpsightRestExtension";
    private static final long CHECK_MS = 10_000;
    private static final int TASKS = 3;
    private static final int RECORDS = 3000;
    private static final Pattern RESTARTED = Pattern.compile("restarted this worker's tasks \\[([^]]*)]");
    /** BdpSettings at 200 Mbit/s: 22 MiB a partition for 100 ms, Kafka's 1 MiB for 2 ms. */
    private static final String FAR_FETCH_BYTES = "23068672";

    private static final String NEAR_FETCH_BYTES = "1048576";

    @Test
    void anRttChangeRestartsEveryTaskOnceAcrossTheClusterAndLosesNoRecord() throws Exception {
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(100)).rateMbit(200))
                .clientInNamespace());
        // restarts and records, never a rate: the broker and workers compile with C1 alone (LabJvm.SHORT_LIVED)
        KafkaBroker broker = KafkaBroker.inLab(lab).shortLivedJvm().start();
        LabTopics.create(broker, "drift", TASKS);
        produce(broker, "before");
        List<LabConnectWorker> workers = new ArrayList<>();
        try {
            workers.addAll(Together.start(List.of(
                    () -> LabConnectWorker.startShortLived(lab, broker, workerConfig(8083), null),
                    () -> LabConnectWorker.startShortLived(lab, broker, workerConfig(8084), null),
                    () -> LabConnectWorker.startShortLived(lab, broker, workerConfig(8085), null))));
            LabConnectWorker first = workers.get(0);
            Path sinkFile = first.directory().resolve("drift.txt");
            Map<String, String> sink = new HashMap<>(Map.of(
                    "connector.class",
                    "org.apache.kafka.connect.file.FileStreamSinkConnector",
                    "tasks.max",
                    Integer.toString(TASKS),
                    "topics",
                    "drift",
                    "file",
                    sinkFile.toString()));
            sink.put("consumer.override.fetch.max.bytes", "${tcpsight:fetch:fetch.max.bytes}");
            sink.put("consumer.override.max.partition.fetch.bytes", "${tcpsight:fetch:max.partition.fetch.bytes}");
            first.put("/connectors/drift-sink/config", sink);
            JsonNode status = first.awaitRunning("drift-sink", TASKS, Duration.ofSeconds(120));
            System.out.println("readaptation: tasks on workers " + workersOfTasks(status));
            awaitDelivered(broker, RECORDS);
            assertEquals(List.of(), restarts(workers), "no drift, no restart");

            lab.changeOneWayDelay(Duration.ofMillis(1));
            produce(broker, "after");

            // Every task ends up running with the values for 2 ms: restarted by re-adaptation on its
            // worker, or rebuilt by the rebalance that another worker's restart caused.
            Map<String, List<String>> built = LabAwait.await("every task rebuilt with the values for 2 ms")
                    .atMost(Duration.ofMillis(CHECK_MS * 6))
                    .every(Duration.ofSeconds(1))
                    .explainedBy(() -> "restarts " + restarts(workers) + ", builds " + builds(workers))
                    .until(() -> {
                        Map<String, List<String>> seen = builds(workers);
                        boolean adapted = seen.size() == TASKS
                                && seen.values().stream().allMatch(values -> values.get(values.size() - 1)
                                        .equals(NEAR_FETCH_BYTES));
                        return adapted ? seen : null;
                    });
            // A worker logs its restarts once Connect's restart call returns, after the task was rebuilt inside
            // it (59 ms later in one run, which this await once fell between): the restarts are read once the
            // list has held for 1 s, the first reading only taken.
            List<String> restarted = LabAwait.await("the restarts logged")
                    .atMost(Duration.ofSeconds(30))
                    .every(Duration.ofSeconds(1))
                    .until(new Callable<List<String>>() {
                        private List<String> before;

                        @Override
                        public List<String> call() {
                            List<String> now = restarts(workers);
                            boolean held = now.equals(before);
                            before = now;
                            return held ? now : null;
                        }
                    });
            // Two more checks on every worker: the same drift must not restart anything again.
            Thread.sleep(CHECK_MS * 2 + 2000);
            List<String> after = restarts(workers);
            System.out.println("readaptation: max.partition.fetch.bytes per task consumer, build by build " + built
                    + "; restarts by re-adaptation " + restarted + ", after two more checks " + after);
            assertEquals(restarted, after, "the same drift is acted on once");
            assertEquals(new HashSet<>(after).size(), after.size(), "no task restarted twice: " + after);
            assertTrue(!after.isEmpty() && after.size() <= TASKS, after.toString());
            for (List<String> values : built.values()) {
                assertEquals(FAR_FETCH_BYTES, values.get(0), "first built for the 100 ms path: " + built);
            }

            first.awaitRunning("drift-sink", TASKS, Duration.ofSeconds(60));
            awaitDelivered(broker, 2 * RECORDS);
            List<String> lines = Files.readAllLines(sinkFile);
            // At least once: a restarted task may write again what it had written but not yet committed.
            assertTrue(lines.size() >= 2 * RECORDS, lines.size() + " lines at the sink");
        } finally {
            workers.forEach(LabConnectWorker::close);
        }
    }

    /** RECORDS records spread evenly over the partitions, so that every task has work. */
    private static void produce(KafkaBroker broker, String batch) {
        DeliveryCheck delivered = new DeliveryCheck("the batch " + batch);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(LabTopics.setupProducer(broker), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>("drift", i % TASKS, null, "drift-" + batch + "-" + i), delivered);
            }
        }
        delivered.assertAllDelivered();
    }

    private static Map<String, String> workerConfig(int port) {
        Map<String, String> config = new TreeMap<>();
        config.put("listeners", "http://0.0.0.0:" + port);
        config.put("rest.advertised.port", Integer.toString(port));
        config.put("group.id", "tcpsight-readapt-cluster");
        config.put("config.storage.topic", "readapt-configs");
        config.put("offset.storage.topic", "readapt-offsets");
        config.put("status.storage.topic", "readapt-status");
        config.put("rest.extension.classes", EXTENSION);
        config.put("config.providers", "tcpsight");
        config.put("config.providers.tcpsight.class", "io.tcpsight.connect.TcpsightConfigProvider");
        config.put("config.providers.tcpsight.param.tcpsight.target.throughput.mbit", "200");
        config.put("config.providers.tcpsight.param.tcpsight.rtt.refresh.ms", "1000");
        config.put("tcpsight.readapt.enabled", "true");
        config.put("tcpsight.readapt.check.interval.ms", Long.toString(CHECK_MS));
        config.put("tcpsight.readapt.factor", "2");
        config.put("tcpsight.readapt.rest.url", "http://127.0.0.1:" + port);
        return config;
    }

    /** Every task restart any worker logged, as connector/task. */
    private static List<String> restarts(List<LabConnectWorker> workers) {
        List<String> restarts = new ArrayList<>();
        for (LabConnectWorker worker : workers) {
            Matcher matcher = RESTARTED.matcher(worker.process().output());
            while (matcher.find()) {
                for (String task : matcher.group(1).split(",")) {
                    if (!task.isBlank()) {
                        restarts.add(task.trim());
                    }
                }
            }
        }
        return restarts;
    }

    /**
     * Each task consumer's max.partition.fetch.bytes, build by build in time order, from the
     * ConsumerConfig every worker logs when it builds a client.
     */
    private static Map<String, List<String>> builds(List<LabConnectWorker> workers) {
        TreeMap<String, String[]> byTime = new TreeMap<>();
        int sequence = 0;
        for (LabConnectWorker worker : workers) {
            for (ClientConfigDump dump : ClientConfigDump.all(worker.process().output(), "Consumer")) {
                String clientId = dump.get("client.id");
                if (clientId != null && clientId.startsWith("connector-consumer-drift-sink-")) {
                    byTime.put(
                            dump.loggedAt() + "#" + sequence++,
                            new String[] {clientId, dump.get("max.partition.fetch.bytes")});
                }
            }
        }
        Map<String, List<String>> builds = new TreeMap<>();
        for (String[] build : byTime.values()) {
            builds.computeIfAbsent(build[0], ignored -> new ArrayList<>()).add(build[1]);
        }
        return builds;
    }

    private static Map<String, List<Integer>> workersOfTasks(JsonNode status) {
        Map<String, List<Integer>> placement = new TreeMap<>();
        for (JsonNode task : status.path("tasks")) {
            placement
                    .computeIfAbsent(task.path("worker_id").asText(), ignored -> new ArrayList<>())
                    .add(task.path("id").asInt());
        }
        return placement;
    }

    /** The sink's consumer group has committed offsets at the end of every partition, holding this many records. */
    private static void awaitDelivered(KafkaBroker broker, int records) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            StringBuilder lastSeen = new StringBuilder();
            LabAwait.await(records + " records committed by the sink's tasks")
                    .atMost(Duration.ofSeconds(120))
                    .every(Duration.ofSeconds(1))
                    .explainedBy(lastSeen::toString)
                    .until(() -> {
                        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(
                                        "connect-drift-sink")
                                .partitionsToOffsetAndMetadata()
                                .get();
                        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                        for (int partition = 0; partition < TASKS; partition++) {
                            latest.put(new TopicPartition("drift", partition), OffsetSpec.latest());
                        }
                        Map<TopicPartition, ListOffsetsResultInfo> ends =
                                admin.listOffsets(latest).all().get();
                        long total = ends.values().stream()
                                .mapToLong(ListOffsetsResultInfo::offset)
                                .sum();
                        boolean caughtUp = ends.entrySet().stream()
                                .allMatch(end -> committed.containsKey(end.getKey())
                                        && committed.get(end.getKey()).offset()
                                                == end.getValue().offset());
                        lastSeen.setLength(0);
                        lastSeen.append("committed ")
                                .append(committed)
                                .append(", ends ")
                                .append(ends);
                        return total == records && caughtUp ? Boolean.TRUE : null;
                    });
        }
    }
}
