package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.Diagnosis;
import io.tcpsight.internal.diagnose.connection.KernelWindowClampRegression;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ClientLibrary;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.KernelVersion;
import io.tcpsight.internal.tuning.BdpSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HumanReportTest {
    /** The doctor's view of broker 3: a consumer's path (the doctor judges a consumer's config). */
    static final ConnectionIdentity BROKER_3 = new BrokerPaths.BrokerPath(
                    "3", new InetSocketAddress("10.0.0.3", 9092), null, null)
            .identity(DoctorClient.of("tcpsight-doctor", ClientLibrary.JAVA));

    /** An info finding: nothing to change. */
    private static final Finding INFO = new Finding(
            RuleId.RETRANSMISSIONS,
            Severity.INFO,
            BROKER_3,
            List.of(new Evidence("retransmitRatio", 0.001, "ratio")),
            new Remedy(List.of(), "noted"));

    /** A consumer 100 ms from its broker with receive.buffer.bytes=65536 (its window clamped at 49,152 bytes). */
    private static ConnectionFacts.Builder smallBufferConsumer(ConnectionIdentity identity) {
        return ConnectionFacts.builder(identity)
                .rttMicros(100_000)
                .windowScaling(true)
                .rcvWindowScale(2)
                .receiveBufferBytes(131_072)
                .windowClampBytes(49_152)
                .kafka(KafkaSettings.fromClientConfig(Map.of("receive.buffer.bytes", "65536"), ClientKind.CONSUMER));
    }

    /** Findings the real rules give for a 64 KiB consumer 100 ms from broker 3 on a host with timestamps off. */
    static List<Finding> realFindings() {
        KernelFacts kernel = new KernelFacts(KernelVersion.of(6, 18, 0), 33_554_432L, 4_194_304L, 0L, 1L);
        ConnectionFacts facts = smallBufferConsumer(BROKER_3).kernel(kernel).build();
        List<Finding> findings = new ArrayList<>(Diagnosis.connection(facts, TcpsightConfig.defaults()));
        findings.addAll(Diagnosis.host(kernel, BROKER_3, 100_000, TcpsightConfig.defaults()));
        return findings;
    }

    @Test
    void forALibrdkafkaClientTheFixIsInLibrdkafkasKeys() {
        ConnectionIdentity librdkafka = new BrokerPaths.BrokerPath(
                        "3", new InetSocketAddress("10.0.0.3", 9092), null, null)
                .identity(DoctorClient.of("rdkafka", DoctorClient.library("librdkafka")));
        ConnectionFacts facts = smallBufferConsumer(librdkafka).build();
        Finding finding = Diagnosis.connection(facts, TcpsightConfig.defaults()).stream()
                .filter(each -> each.rule().id().equals("small-receive-buffer"))
                .findFirst()
                .orElseThrow();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        HumanReport.findings(List.of(finding), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("socket.receive.buffer.bytes"), text);
        assertTrue(!text.contains(" receive.buffer.bytes=-1"), "no Java key for a librdkafka client:\n" + text);
    }

    @Test
    void findingsAreGroupedBySeverityEachWithItsFix() {
        List<Finding> findings = realFindings();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        HumanReport.findings(findings, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String text = bytes.toString(StandardCharsets.UTF_8);
        int critical = text.indexOf(
                "CRITICAL  small-receive-buffer  [client client.id=tcpsight-doctor node=3 peer=10.0.0.3:9092]");
        int warn = text.indexOf("WARN  timestamps-disabled");
        assertTrue(critical >= 0 && warn > critical, "critical before warn:\n" + text);
        assertTrue(text.contains("fix:      receive.buffer.bytes=-1 (client)"), text);
        assertTrue(text.contains("evidence: rtt=100 ms, windowCeiling=49152 bytes"), text);
        assertTrue(text.startsWith("== findings: 1 critical, 2 warn, 0 info"), text);
        assertTrue(text.strip().endsWith("3 finding(s) to act on (exit 1)"), text);
    }

    @Test
    void infoFindingsAloneAreHealthy() {
        assertEquals(ExitCodes.HEALTHY, report(List.of(INFO)).exitCode());
        assertEquals(ExitCodes.HEALTHY, report(List.of()).exitCode());
        assertEquals(ExitCodes.FINDINGS, report(realFindings()).exitCode());
    }

    @Test
    void theHostSectionSaysWhetherTheKernelIsInThe66ClampRegressionRange(@TempDir Path proc) throws Exception {
        assertTrue(KernelWindowClampRegression.inClampRegressionRange(KernelVersion.of(6, 6, 10)));
        assertTrue(hostSection(proc, "6.6.10-generic")
                .contains("6.6.10-generic (INSIDE the 6.6 window-clamp regression range"));
        assertTrue(hostSection(proc, "6.18.44").contains("6.18.44 (outside the 6.6 window-clamp regression range)"));
        String unreadable = hostSection(proc, "");
        assertTrue(unreadable.contains("kernel                               unknown (version unknown)"), unreadable);
    }

    /** A producer sized for the same path as the consumer: five requests of 4 partitions carry two BDPs. */
    @Test
    void theClientSectionSizesTheProducerToo(@TempDir Path proc) throws Exception {
        Map<String, String> configured = new LinkedHashMap<>();
        configured.put("receive.buffer.bytes", "65536");
        configured.put("batch.size", null);
        configured.put("linger.ms", "0");
        DoctorReport report = DoctorReport.builder("x:1")
                .host(HostTcpFacts.read(proc))
                .client(configured, "test")
                .sizing(200, BdpSettings.recommend(new BdpSettings.Input(100_000, 25e6, 4, null, null, 1024)))
                .probe("orders", List.of(), "")
                .writeProbe(
                        WriteProbe.Measured.NOTHING,
                        "not measured: on a named cluster the probe writes only with --probe-write")
                .findings(List.of())
                .build();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        HumanReport.print(report, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.matches("(?s).*\\n  batch\\.size +default +262144\\n.*"), text);
        assertTrue(text.matches("(?s).*\\n  linger\\.ms +0 +20\\n.*"), text);
        assertTrue(text.matches("(?s).*\\n  send\\.buffer\\.bytes +default +-1\\n.*"), text);
        assertTrue(
                text.contains(
                        "== produce throughput to topic orders, one run per variant, in this order (1000-byte records)\n"
                                + "  not measured: on a named cluster the probe writes only with --probe-write"),
                text);
    }

    /**
     * A producer's write variants, each with its own connection as the rules judged it: the
     * actionable findings counted and printed under their variant (an info one neither), a variant
     * judged clean as "nothing to change", one that could not be judged with why.
     */
    @Test
    void eachWriteVariantsOwnConnectionIsPrintedUnderItsRate(@TempDir Path proc) throws Exception {
        Finding warn = new Finding(
                RuleId.PRODUCE_PIPELINE_BELOW_BDP,
                Severity.WARN,
                BROKER_3,
                List.of(new Evidence("requestsPerRoundTrip", 4.5, "count")),
                new Remedy(List.of(), "its pipeline"));
        ThroughputProbe.Variant recommended = new ThroughputProbe.Variant("tcpsight recommendation", Map.of());
        ThroughputProbe.Variant third = new ThroughputProbe.Variant("a third", Map.of());
        WriteProbe.Measured measured = new WriteProbe.Measured(
                List.of(
                        new ThroughputProbe.Result(WriteProbe.AS_CONFIGURED, 1, 1, Duration.ofSeconds(8), false),
                        new ThroughputProbe.Result(
                                recommended, 17_100_000, 17_100, Duration.ofSeconds(6), false, Duration.ofSeconds(2)),
                        new ThroughputProbe.Result(third, 1, 1, Duration.ofSeconds(8), false)),
                List.of(
                        new WriteProbe.OwnConnection(List.of(warn, INFO), 270, ""),
                        new WriteProbe.OwnConnection(List.of(INFO), 90, ""),
                        WriteProbe.OwnConnection.notJudged("no connection to a broker carried its requests")));
        DoctorReport report = DoctorReport.builder("x:1")
                .host(HostTcpFacts.read(proc))
                .clientPath("producer", null)
                .probe("orders", List.of(), "not measured: a producer's config is measured by what it writes")
                .writeProbe(measured, "")
                .findings(List.of())
                .build();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        HumanReport.print(report, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String text = bytes.toString(StandardCharsets.UTF_8);
        String judged = ", its own connection judged as the agent judges a producer (";
        assertTrue(
                text.contains("  " + WriteProbe.AS_CONFIGURED.label() + judged
                        + "270 requests over its last three quarters): 1 finding(s)\n"
                        + "    WARN  produce-pipeline-below-bdp  [" + BROKER_3.describe() + "]\n"
                        + "      evidence: requestsPerRoundTrip=4.50 count\n"),
                text);
        assertTrue(!text.contains("    INFO  retransmissions"), "an info finding is not one to change:\n" + text);
        assertTrue(
                text.contains("     22.8 Mbit/s  (17.1 MB in 6.0 s after its first 2.0 s)\n"),
                "a rate read past the variant's start says from when:\n" + text);
        assertTrue(
                text.contains("  tcpsight recommendation" + judged
                        + "90 requests over its last three quarters): nothing to change\n"),
                text);
        assertTrue(
                text.contains(
                        "  a third, its own connection: not judged: no connection to a broker carried its requests\n"),
                text);
        assertTrue(
                text.contains("  not measured: a producer's config is measured by what it writes\n"),
                "the consume probe's note: " + text);
    }

    /** The host section for a /proc whose only file is the kernel release. */
    private static String hostSection(Path proc, String release) throws Exception {
        Path file = proc.resolve("sys/kernel/osrelease");
        Files.createDirectories(file.getParent());
        Files.writeString(file, release + "\n");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        HumanReport.host(HostTcpFacts.read(proc), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static DoctorReport report(List<Finding> findings) {
        return DoctorReport.builder("x:1").sizing(100, null).findings(findings).build();
    }
}
