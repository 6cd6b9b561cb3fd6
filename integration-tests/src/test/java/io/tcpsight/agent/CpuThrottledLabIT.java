package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.FindingView;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.LabAwait;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.LabTopics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A broker whose cgroup has a CPU quota (cgroup v1, 0.2 of a core) under produce load: the agent's
 * cpu-throttled finding names the broker's cgroup and its limit, and the produce latency is
 * measured side by side with the quota and after it is lifted.
 */
@ResourceLock(HostCpu.LOCK)
class CpuThrottledLabIT {
    private static final Path CPU_HIERARCHY = Path.of("/sys/fs/cgroup/cpu");
    private static final Duration LOAD = Duration.ofSeconds(6);

    @Test
    void aThrottledBrokerIsNamedAndLiftingTheQuotaShortensItsProduceLatency() throws Exception {
        LabPrerequisites.requireCgroupV1Cpu(CPU_HIERARCHY);
        Path cgroup =
                CPU_HIERARCHY.resolve("tcpsight-" + ProcessHandle.current().pid());
        try (KafkaBroker broker = KafkaBroker.onLoopback().agent("interval=1s").start()) {
            LabTopics.create(broker, "throttled", 1);
            Files.createDirectories(cgroup);
            Files.writeString(cgroup.resolve("cpu.cfs_period_us"), "100000");
            Files.writeString(cgroup.resolve("cpu.cfs_quota_us"), "20000");
            Files.writeString(
                    cgroup.resolve("cgroup.procs"),
                    Long.toString(broker.process().pid()));
            try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
                double[] throttled = produce(producer);
                FindingView finding = LabAwait.await("the agent's cpu-throttled finding")
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> FindingView.list(broker.agentGet("/findings")).stream()
                                .filter(f -> f.is("cpu-throttled"))
                                .findFirst()
                                .orElse(null));
                Files.writeString(cgroup.resolve("cpu.cfs_quota_us"), "-1");
                double[] lifted = produce(producer);
                System.out.printf(
                        "produce latency (acks=all, 1 KB, %d s) with a 0.2-core quota: p50 %.1f ms, p99 %.1f ms;"
                                + " lifted: p50 %.1f ms, p99 %.1f ms%nfinding: %s%n",
                        LOAD.toSeconds(), throttled[0], throttled[1], lifted[0], lifted[1], finding);
                assertEquals("/" + cgroup.getFileName(), finding.text("cgroup").orElseThrow());
                assertEquals(0.2, finding.number("cpuLimit"), 1e-9);
                assertTrue(finding.number("throttledPeriods") > 0, finding.toString());
                assertEquals("broker", finding.connection().role());
                assertTrue(throttled[1] > 2 * lifted[1], "p99 throttled " + throttled[1] + " vs lifted " + lifted[1]);
            }
        } finally {
            if (Files.isDirectory(cgroup)) {
                for (String pid : Files.readAllLines(cgroup.resolve("cgroup.procs"))) {
                    Files.writeString(CPU_HIERARCHY.resolve("cgroup.procs"), pid);
                }
                Files.delete(cgroup);
            }
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(KafkaBroker broker) {
        return new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                        ProducerConfig.ACKS_CONFIG, "all",
                        ProducerConfig.LINGER_MS_CONFIG, "0"),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    /** Sends one record after another for {@link #LOAD}, each waited for; p50 and p99 in ms. */
    private static double[] produce(KafkaProducer<byte[], byte[]> producer) throws Exception {
        List<Double> millis = new ArrayList<>();
        byte[] value = new byte[1000];
        long end = System.nanoTime() + LOAD.toNanos();
        while (System.nanoTime() < end) {
            long start = System.nanoTime();
            Future<?> sent = producer.send(new ProducerRecord<>("throttled", value));
            sent.get(30, TimeUnit.SECONDS);
            millis.add((System.nanoTime() - start) / 1e6);
        }
        Collections.sort(millis);
        return new double[] {millis.get(millis.size() / 2), millis.get((int) (millis.size() * 0.99))};
    }
}
