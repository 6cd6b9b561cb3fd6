package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabDoctor;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The doctor's write probe for a producer's config, through the unzipped doctor on a client host
 * of its own. Its claim is a rate against the line, so it takes the host whole.
 */
@ResourceLock(HostCpu.LOCK)
class DoctorWriteProbeLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The write probe for a producer's config, 100 ms and 200 Mbit/s away, the doctor on a client
     * host of its own (the lab's client namespace): a Java producer with Kafka's defaults and a
     * librdkafka producer's own file. Each is measured by what it writes, not by reading the topic;
     * the configured producer's own connection is judged as the agent judges a producer, from its
     * own metrics beside TCP_INFO; and once the host's `tcp_wmem` is what the doctor names, the
     * recommendation moves five times the configured rate and 80 % of the line or more.
     */
    @Test
    void aProducersWriteProbeJudgesItsOwnConnectionAndTheRecommendationReachesTheLine(@TempDir Path directory)
            throws Exception {
        // the broker's receive buffers autotune to the path (its host is the operator's, which the doctor cannot
        // read), so that only the producer's settings and its own host differ between the probe's variants. A
        // router's queue of 4.8 BDPs in front of the line, as the other one-round tests have: behind the lab's
        // default 1,000 packets (0.6 BDP) the recommendation's BBR start-up lost 17 % of its segments and moved
        // 145 Mbit/s, and the doctor named retransmissions on its connection (2026-12-02)
        KernelLab lab = LAB.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(100)).rateMbit(200).queuePackets(8_000))
                .clientInNamespace()
                .serverSysctl("net.ipv4.tcp_rmem", "4096 131072 33554432"));
        KafkaBroker broker =
                KafkaBroker.start(lab, Map.of("socket.send.buffer.bytes", "-1", "socket.receive.buffer.bytes", "-1"));
        LabTopics.create(broker, "doctor-writes", 1);
        Path java = Files.writeString(directory.resolve("producer.properties"), "client.id=far-producer\nacks=all\n");
        Path rdkafka = Files.writeString(
                directory.resolve("rdkafka.conf"),
                "client.id=far-rdkafka\nenable.idempotence=true\nbatch.size=16384\nsocket.send.buffer.bytes=131072\n");

        // what the doctor names for this host, applied as an operator would before measuring
        LabDoctor.Run judged = LabDoctor.runOnClientSide(
                lab,
                Duration.ofMinutes(2),
                "--bootstrap-server",
                broker.bootstrapServers(),
                "--command-config",
                java.toString(),
                "--set",
                "tcpsight.target.throughput.mbit=200",
                "--json");
        System.out.println(judged);
        String wmem = null;
        for (JsonNode setting : DoctorLabIT.find(JSON.readTree(judged.out()), "small-send-buffer")
                .path("remedy")
                .path("settings")) {
            if (setting.path("key").asText().equals("net.ipv4.tcp_wmem")) {
                wmem = setting.path("value").asText();
            }
        }
        assertTrue(wmem != null, "the client host's tcp_wmem (4 MiB, below two BDPs) is named: " + judged);
        lab.changeClientSysctl("net.ipv4.tcp_wmem", wmem);

        List<String> told = new ArrayList<>();
        for (Path config : List.of(java, rdkafka)) {
            List<String> args = new ArrayList<>(List.of(
                    "--bootstrap-server",
                    broker.bootstrapServers(),
                    "--command-config",
                    config.toString(),
                    "--set",
                    "tcpsight.target.throughput.mbit=200",
                    "--probe-topic",
                    "doctor-writes",
                    "--probe-write",
                    "--probe-seconds",
                    "8"));
            boolean librdkafka = config.equals(rdkafka);
            if (librdkafka) {
                args.addAll(List.of("--client-library", "librdkafka"));
            }
            LabDoctor.Run run = LabDoctor.runOnClientSide(lab, Duration.ofMinutes(3), args.toArray(new String[0]));
            System.out.println(run);
            assertEquals(1, run.exit(), run.toString());
            String report = run.out();
            assertTrue(
                    report.contains("not measured: a producer's config is measured by what it writes"),
                    "a producer's config reads nothing:\n" + report);
            assertEquals(Map.of(), ProbeTopics.probeRates(report), "no consume variant ran:\n" + report);
            assertFalse(run.err().contains("reading doctor-writes"), "no consume variant ran:\n" + run.err());
            Map<String, Double> writes = ProbeTopics.writeRates(report);
            double configured = ProbeTopics.rate(writes, "producer as configured");
            double recommended = ProbeTopics.rate(writes, "tcpsight recommendation (batch.size 1024 KiB");
            told.add(String.format(
                    "%s: as configured %.1f, recommendation %.1f Mbit/s (%.1fx, %.0f%% of the line)",
                    config.getFileName(), configured, recommended, recommended / configured, recommended / 2));
            // five requests of one 16 KiB batch per round trip: 5 x 16384 B / 100 ms is 6.6 Mbit/s at most
            assertTrue(configured < 7, "16 KiB batches over 100 ms: " + writes);
            assertTrue(recommended > 5 * configured, "batches sized to the BDP: " + writes);
            assertTrue(recommended >= 0.8 * 200, "the recommendation reaches 80% of the line: " + writes);
            // records' bytes, which the line carries with their headers: a rate read over less time than its bytes took
            // (the first quarter's acknowledged counted in) would read above the line
            assertTrue(recommended <= 200, "no more than the line carries: " + writes);
            // each rate is read over the variant's last three quarters, past its connection's start-up
            Matcher window = Pattern.compile("  tcpsight recommendation \\(batch\\.size 1024 KiB[^\n]* Mbit/s  \\("
                            + "[0-9.]+ MB in ([0-9.]+) s after its first ([0-9.]+) s\\)")
                    .matcher(report);
            assertTrue(window.find(), "the recommendation's rate says its window:\n" + report);
            double after = Double.parseDouble(window.group(2));
            double over = Double.parseDouble(window.group(1));
            assertTrue(
                    after >= 2 && after < 2.5 && over + after >= 8 && over + after < 8.5,
                    "past the first quarter of 8 s, to the end: " + window.group());
            assertOwnConnectionJudgedAsTheAgentWould(report, broker, librdkafka);
            // silence means fast: the recommendation's own connection, at the line, leaves nothing to change
            // (judged on the requests its socket carried: a judgement of no socket says "not judged")
            Matcher clean = Pattern.compile("  tcpsight recommendation \\(batch\\.size 1024 KiB, linger\\.ms 20,"
                            + " send\\.buffer\\.bytes -1\\), its own connection judged as the agent judges a producer"
                            + " \\(([0-9]+) requests over its last three quarters\\): nothing to change\n")
                    .matcher(report);
            assertTrue(clean.find(), "the recommendation's own connection:\n" + report);
            assertTrue(Long.parseLong(clean.group(1)) > 0, clean.group());
        }
        System.out.println("write probe at 100 ms, 200 Mbit/s, one partition, tcp_wmem " + wmem + ": " + told);
    }

    /**
     * The configured producer's own connection, judged from its own metrics: Kafka's five requests
     * in flight, each one full 16 KiB batch of the one partition, named on the probe's connection
     * to node 1, with the batch to change in the client's own library's key.
     */
    private static void assertOwnConnectionJudgedAsTheAgentWould(
            String report, KafkaBroker broker, boolean librdkafka) {
        Matcher judged = Pattern.compile("  producer as configured[^\\n]*, its own connection judged as the agent"
                        + " judges a producer \\([1-9][0-9]* requests over its last three quarters\\): [0-9]+"
                        + " finding\\(s\\)\\n(?:    [^\\n]*\\n)*?"
                        + "    CRITICAL  produce-pipeline-below-bdp  \\[client client\\.id=tcpsight-doctor-write-probe"
                        + " node=1 peer=" + Pattern.quote(broker.bootstrapServers()) + "[^\\n]*\\]\\n"
                        + "      evidence: ([^\\n]*)\\n      fix: +([^\\n]*)\\n")
                .matcher(report);
        assertTrue(judged.find(), "the configured producer's own connection:\n" + report);
        String evidence = judged.group(1);
        Matcher requests = Pattern.compile("requestsPerRoundTrip=([0-9.]+)").matcher(evidence);
        Matcher bytes = Pattern.compile("bytesPerRequest=([0-9]+)").matcher(evidence);
        assertTrue(requests.find() && bytes.find(), evidence);
        double perRoundTrip = Double.parseDouble(requests.group(1));
        long perRequest = Long.parseLong(bytes.group(1));
        // at most five in flight a round trip; at least three, or the pipeline would not be what holds it
        assertTrue(perRoundTrip <= 5.05 && perRoundTrip >= 3, "requests a round trip: " + evidence);
        // one batch of the one partition a request, full (the next 1,000-byte record would not fit its 16 KiB),
        // with the request's own headers
        assertTrue(perRequest >= 16_384 - 1_024 && perRequest <= 16_384 + 1_024, "bytes a request: " + evidence);
        String fix = judged.group(2);
        assertTrue(
                fix.contains("batch.size=1048576 (client" + (librdkafka ? ", librdkafka)" : ")")),
                "the batch, in the library's key: " + fix);
    }
}
