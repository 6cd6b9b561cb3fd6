package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpsight.lab.BenchmarkJit;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.LabDoctor;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.LabTopics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * What attaching the agent to a running, loaded broker costs its clients: a producer (acks=all,
 * 1,000-byte records at a fixed pace) writes to a loopback broker for {@code seconds}; after
 * {@code attach.at} seconds {@code tcpsight attach PID} loads the agent, whose retransformation
 * of Kafka's classes runs while the producer writes. Reports the produce latency p50/p99/max and
 * the acknowledged rate over the seconds before the attach, the first five after it, and the rest,
 * and the time until the agent names the producer's connection,
 * on the lab's Java 17 and on Temurin 25, runs interleaved. Not part of mvn verify (its name is
 * not *IT); run it with:
 * mvn -B verify -pl integration-tests -am -Dit.test=AttachCostBenchmark -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
 */
class AttachCostBenchmark {
    private static final int RUNS = Integer.getInteger("runs", 2);
    private static final int SECONDS = Integer.getInteger("seconds", 40);
    private static final int ATTACH_AT = Integer.getInteger("attach.at", 25);
    private static final int RECORDS_PER_SECOND = Integer.getInteger("records.per.second", 20_000);
    private static final int AFTER_ATTACH = 5;
    private static final String PRODUCER = "attach-load-producer";

    @Test
    void attachingTheAgentToALoadedBroker() throws Exception {
        BenchmarkJit.requireFullJit();
        LabPrerequisites.requireKafkaRuntime();
        Path java17 = Path.of(System.getProperty("java.home"));
        Path java25 = LabPrerequisites.requireJavaRuntime(25);
        StringBuilder table =
                new StringBuilder("| runtime | run | window | records/s acknowledged | p50 ms | p99 ms | max ms |\n"
                        + "|---|---:|---|---:|---:|---:|---:|\n");
        for (int run = 1; run <= RUNS; run++) {
            for (Path home : run % 2 == 1 ? List.of(java17, java25) : List.of(java25, java17)) {
                boolean newest = home.equals(java25);
                table.append(measure(home, newest, newest ? "Temurin 25" : "Java 17 (the lab's)", run));
            }
        }
        System.out.println("attach cost, " + RECORDS_PER_SECOND + " records/s of 1,000 bytes, acks=all, attach at "
                + ATTACH_AT + " s of " + SECONDS + " s:\n" + table);
    }

    private static String measure(Path home, boolean java25, String runtime, int run) throws Exception {
        // as the benchmark was first measured, and an attached agent grows the boot class path
        KafkaBroker.Builder builder = KafkaBroker.onLoopback().onRuntime(home).withoutSharedClasses();
        if (java25) {
            // as docs/broker-agent.md gives them for Java 24 and later: the agent's native library, and
            // a dynamically loaded agent without the JVM's JEP 451 warning
            builder.jvmOption("--enable-native-access=ALL-UNNAMED").jvmOption("-XX:+EnableDynamicAgentLoading");
        }
        try (KafkaBroker broker = builder.start()) {
            LabTopics.create(broker, "attach-load", 1);
            // each record's send time and acknowledgement time, nanoseconds
            ConcurrentLinkedQueue<long[]> acknowledged = new ConcurrentLinkedQueue<>();
            long start = System.nanoTime();
            long attachedAt = 0;
            CompletableFuture<Void> attaching = null;
            Map<String, Object> config = Map.of(
                    "bootstrap.servers",
                    broker.bootstrapServers(),
                    "acks",
                    "all",
                    "linger.ms",
                    "1",
                    "client.id",
                    PRODUCER);
            try (KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
                byte[] value = new byte[1000];
                long sent = 0;
                while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(SECONDS)) {
                    long due = start + sent * 1_000_000_000L / RECORDS_PER_SECOND;
                    long now = System.nanoTime();
                    if (now < due) {
                        Thread.sleep(0, (int) Math.min(999_999, due - now));
                        continue;
                    }
                    if (attachedAt == 0 && now - start >= TimeUnit.SECONDS.toNanos(ATTACH_AT)) {
                        attachedAt = now;
                        // beside the producer, which keeps its pace
                        attaching = CompletableFuture.runAsync(() -> attach(broker));
                    }
                    long sentAt = System.nanoTime();
                    producer.send(new ProducerRecord<>("attach-load", value), (metadata, failure) -> {
                        if (failure == null) {
                            acknowledged.add(new long[] {sentAt, System.nanoTime()});
                        }
                    });
                    sent++;
                }
                producer.flush();
            }
            attaching.join();
            List<long[]> all = new ArrayList<>(acknowledged);
            long attachNanos = attachedAt;
            // the broker's and the producer's own warm-up (JIT) is over after the first 15 s
            return row(
                            runtime,
                            run,
                            "the 10 s before the attach",
                            all,
                            attachNanos - TimeUnit.SECONDS.toNanos(10),
                            attachNanos)
                    + row(
                            runtime,
                            run,
                            "the " + AFTER_ATTACH + " s from the attach",
                            all,
                            attachNanos,
                            attachNanos + TimeUnit.SECONDS.toNanos(AFTER_ATTACH))
                    + row(
                            runtime,
                            run,
                            "after that",
                            all,
                            attachNanos + TimeUnit.SECONDS.toNanos(AFTER_ATTACH),
                            start + TimeUnit.SECONDS.toNanos(SECONDS));
        }
    }

    /** tcpsight attach, as an operator runs it; the time it took goes to the output. */
    private static void attach(KafkaBroker broker) {
        try {
            attachNow(broker);
        } catch (Exception failed) {
            throw new CompletionException(failed);
        }
    }

    /**
     * Then the time until the agent names the producer's connection (its client.id, from the
     * requests it reads after adopting the open connection) in /connections.
     */
    private static void attachNow(KafkaBroker broker) throws Exception {
        long before = System.nanoTime();
        int port = KafkaBroker.freePort();
        LabDoctor.Run attached = LabDoctor.command(
                Duration.ofSeconds(60),
                "attach",
                Long.toString(broker.process().pid()),
                "--agent-jar",
                System.getProperty("tcpsight.lab.agent.jar"),
                "port=" + port + ",interval=10s");
        assertEquals(0, attached.exit(), attached.toString());
        double attachSeconds = (System.nanoTime() - before) / 1e9;
        String connections = "";
        while (!connections.contains(PRODUCER) && System.nanoTime() - before < TimeUnit.SECONDS.toNanos(60)) {
            Thread.sleep(100);
            connections = KafkaBroker.httpGet("http://127.0.0.1:" + port + "/connections");
        }
        System.out.printf(
                "attached in %.2f s, the producer's connection named %.2f s after the attach began: %s%n",
                attachSeconds,
                (System.nanoTime() - before) / 1e9,
                attached.out().strip());
    }

    /** Records sent within [from, to): their acknowledged rate and latency quantiles. */
    private static String row(String runtime, int run, String window, List<long[]> all, long from, long to) {
        List<Long> latencies = new ArrayList<>();
        for (long[] record : all) {
            if (record[0] >= from && record[0] < to) {
                latencies.add(record[1] - record[0]);
            }
        }
        long[] sorted = latencies.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        double seconds = (to - from) / 1e9;
        return String.format(
                "| %s | %d | %s | %.0f | %.2f | %.2f | %.2f |%n",
                runtime,
                run,
                window,
                sorted.length / seconds,
                quantile(sorted, 0.50) / 1e6,
                quantile(sorted, 0.99) / 1e6,
                sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1e6);
    }

    private static double quantile(long[] sorted, double q) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))];
    }
}
