package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.LabDoctor;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.LabTls;
import io.tcpsight.testing.NoticeCoverage;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The README's first command: the doctor with no cluster runs against an embedded KRaft broker and
 * leaves nothing behind. And what an operator unpacks (the doctor's zip, the Connect plugin's, the
 * agent's jar) carries LICENSE and a NOTICE that names every jar in it.
 */
// runs nothing across the delay line: may run beside the lab classes (HostCpu)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class DoctorIT {
    /**
     * What ships carries its licence and notices, in the archives as the build made them (the ones the
     * lab runs): the doctor's zip (at its top) and the Connect plugin's (in doc/) each hold LICENSE and
     * NOTICE as the repository has them, and NOTICE names every third-party jar in them; the agent's
     * jar holds one META-INF/NOTICE and one META-INF/LICENSE, the repository's.
     */
    @Test
    void everyShippedArchiveCarriesLicenseAndNoticeAndNoticeNamesEveryJarInIt() throws IOException {
        LabPrerequisites.requireDoctor();
        LabPrerequisites.requireConnectPlugin();
        Path doctor = LabPaths.doctorZip();
        Path connect = LabPaths.connectZip();
        Path agent = LabPaths.agentJar();
        assertTrue(Files.isRegularFile(agent), "the agent's jar at " + agent + " (mvn package -pl broker-agent -am)");
        Matcher pom = Pattern.compile("<version>([^<]+)</version>").matcher(Files.readString(Path.of("..", "pom.xml")));
        assertTrue(pom.find(), "the project's version in pom.xml");
        String version = pom.group(1);
        String license = Files.readString(Path.of("..", "LICENSE"));
        String notice = Files.readString(Path.of("..", "NOTICE"));
        Map<String, List<String>> doctorJars = NoticeCoverage.jarsByFolder(doctor);
        Map<String, List<String>> pluginJars = NoticeCoverage.jarsByFolder(connect);
        System.out.println("jars checked against NOTICE: " + doctorJars + ", " + pluginJars);
        assertTrue(doctorJars.getOrDefault("lib/", List.of()).size() >= 5, "the doctor's lib/: " + doctorJars);
        assertTrue(doctorJars.getOrDefault("broker-lib/", List.of()).size() >= 30, "its broker-lib/: " + doctorJars);
        assertTrue(pluginJars.getOrDefault("lib/", List.of()).size() >= 5, "the plugin's lib/: " + pluginJars);
        List<String> problems = new ArrayList<>();
        problems.addAll(
                NoticeCoverage.archiveProblems(doctor, version, "tcpsight-doctor-" + version + "/", license, notice));
        problems.addAll(NoticeCoverage.archiveProblems(
                connect, version, "tcpsight-connect-plugin-" + version + "/doc/", license, notice));
        problems.addAll(NoticeCoverage.archiveProblems(agent, version, "META-INF/", license, notice));
        assertEquals(List.of(), problems, "what the shipped archives lack");
    }

    @Test
    void withNoClusterTheEmbeddedBrokerGetsTheWholeReportAndIsGoneAfterwards() throws Exception {
        LabDoctor.Run run =
                // 1 s a probe: what is asserted here is that each probe ran and moved records on loopback
                LabDoctor.run(Duration.ofMinutes(3), "--probe-topic", "tcpsight-probe", "--probe-seconds", "1");
        System.out.println(run);
        assertTrue(run.exit() == 0 || run.exit() == 1, "0 healthy or 1 findings on this host: " + run);
        assertTrue(run.err().contains("starting an embedded single-node KRaft broker"), run.err());
        for (String section : new String[] {
            "== this host",
            "== brokers",
            "== client config",
            "== consume throughput",
            "== produce throughput",
            "== findings"
        }) {
            assertTrue(run.out().contains(section), section + " missing:\n" + run.out());
        }
        Matcher broker = Pattern.compile("^  1\\s+127\\.0\\.0\\.1:(\\d+)\\s+([0-9.]+) ms", Pattern.MULTILINE)
                .matcher(run.out());
        assertTrue(broker.find(), "node 1 with its RTT:\n" + run.out());
        assertTrue(Double.parseDouble(broker.group(2)) < 5, "loopback RTT: " + broker.group(2));
        Map<String, Double> rates = ProbeTopics.probeRates(run.out());
        assertEquals(3, rates.size(), rates.toString());
        rates.values().forEach(rate -> assertTrue(rate > 0, rates.toString()));
        Map<String, Double> writes = ProbeTopics.writeRates(run.out());
        assertEquals(
                2, writes.size(), "the embedded broker's topic is written as configured and as recommended: " + writes);
        writes.values().forEach(rate -> assertTrue(rate > 0, writes.toString()));
        // a consumer's config (Kafka's defaults): its write variants are not judged as a producer's
        assertFalse(run.out().contains("its own connection"), run.out());
        int port = Integer.parseInt(broker.group(1));
        assertThrows(IOException.class, () -> new Socket("127.0.0.1", port).close(), "the embedded broker was stopped");
    }

    @Test
    void jsonPrintsOnlyTheSharedFindingArray() throws Exception {
        LabDoctor.Run run = LabDoctor.run(Duration.ofMinutes(3), "--json");
        JsonNode findings = new ObjectMapper().readTree(run.out());
        assertTrue(findings.isArray(), run.toString());
        for (JsonNode finding : findings) {
            for (String field : new String[] {"rule", "severity", "connection", "evidence", "remedy"}) {
                assertTrue(finding.has(field), field + " in " + finding);
            }
        }
        assertEquals(expectedExit(findings), run.exit(), run.toString());
    }

    /**
     * docs/doctor.md's SASL-over-TLS command config, its paths and passwords filled in, reaches a
     * broker whose listener is SASL_SSL: the broker is measured, and no secret is printed.
     */
    @Test
    void theDocumentedSaslOverTlsConfigReachesASaslSslBroker(@TempDir Path directory) throws Exception {
        LabTls tls = LabTls.create("doctor-sasl-ssl");
        Map<String, String> client = tls.client("doctor");
        String documented = documentedBlock("# doctor-sasl-ssl.properties");
        String filled = documented
                .replace("/etc/kafka/ca-truststore.p12", client.get("ssl.truststore.location"))
                .replace("truststore-password", client.get("ssl.truststore.password"))
                .replace(
                        "username=\"doctor\" password=\"doctor-password\"",
                        "username=\"doctor\" password=\"" + DOCTOR_PASSWORD + "\"");
        assertTrue(!filled.equals(documented) && filled.contains(DOCTOR_PASSWORD), filled);
        Path config = Files.writeString(directory.resolve("doctor-sasl-ssl.properties"), filled);
        try (KafkaBroker broker = KafkaBroker.onLoopback()
                .shortLivedJvm()
                .saslOverTls(tls, "admin", "admin-secret")
                .saslUser("doctor", DOCTOR_PASSWORD)
                // the documented file carries no client certificate: the listener asks for none
                .overrides(Map.of("ssl.client.auth", "none"))
                .start()) {
            LabDoctor.Run run = LabDoctor.run(
                    Duration.ofMinutes(2),
                    "--bootstrap-server",
                    broker.bootstrapServers(),
                    "--command-config",
                    config.toString());
            System.out.println(run);
            assertTrue(run.exit() == 0 || run.exit() == 1, "a report, not a refusal: " + run);
            Matcher measured = Pattern.compile("^  1\\s+127\\.0\\.0\\.1:\\d+\\s+([0-9.]+) ms", Pattern.MULTILINE)
                    .matcher(run.out());
            assertTrue(measured.find(), "node 1 measured over SASL_SSL:\n" + run.out());
            assertTrue(!run.out().contains("broker-unreachable"), run.out());
            for (String secret : List.of(DOCTOR_PASSWORD, client.get("ssl.truststore.password"))) {
                assertTrue(!run.out().contains(secret) && !run.err().contains(secret), "a secret printed: " + run);
            }
        }
    }

    private static final String DOCTOR_PASSWORD = "doctor-pw-7f3a";

    /** The fenced block of docs/doctor.md whose first line is {@code firstLine}. */
    private static String documentedBlock(String firstLine) throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "doctor.md"));
        int start = doc.indexOf("```properties\n" + firstLine + "\n");
        assertTrue(start >= 0, "docs/doctor.md has the block " + firstLine);
        int body = doc.indexOf('\n', start) + 1;
        return doc.substring(body, doc.indexOf("```", body));
    }

    /** The exit code the doctor owes for these findings: 1 when any is warn or critical, else 0. */
    static int expectedExit(JsonNode findings) {
        for (JsonNode finding : findings) {
            if (!finding.path("severity").asText().equals("info")) {
                return 1;
            }
        }
        return 0;
    }
}
