package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.testing.NoticeCoverage;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NOTICE names every third-party jar the shipped archives carry, with its licence. The embedded
 * broker's jars are checked here without a build: they are the doctor's test class path less what
 * its pom keeps out of broker-lib/. The other folders are checked on the built zips with
 * {@link NoticeCoverage}, which a synthetic zip proves here.
 */
class NoticeCoverageTest {
    private static final String SYNTHETIC_NOTICE = String.join(
            "\n",
            "tcpsight",
            "",
            "tcpsight-doctor-<version>.zip, lib/ (the doctor's class path):",
            "  - kafka-clients (Apache Kafka): Apache License 2.0",
            "  - zstd-jni: BSD 2-Clause License",
            "",
            "tcpsight-doctor-<version>.zip, broker-lib/:",
            "  - kafka_2.13, kafka-clients: Apache License 2.0",
            "");

    @Test
    void aJarNoticeDoesNotNameIsReportedAndTcpsightsOwnNeedNoLine(@TempDir Path directory) throws IOException {
        Path zip = directory.resolve("tcpsight-doctor-1.2.3.zip");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            for (String entry : List.of(
                    "tcpsight-doctor-1.2.3/tcpsight-doctor-1.2.3.jar",
                    "tcpsight-doctor-1.2.3/README.md",
                    "tcpsight-doctor-1.2.3/lib/kafka-clients-4.3.1.jar",
                    "tcpsight-doctor-1.2.3/lib/zstd-jni-1.5.6-10.jar",
                    "tcpsight-doctor-1.2.3/lib/tcpsight-client-metrics-1.2.3.jar",
                    "tcpsight-doctor-1.2.3/lib/kafka-clients-extra-1.0.jar",
                    "tcpsight-doctor-1.2.3/broker-lib/kafka_2.13-4.3.1.jar",
                    "tcpsight-doctor-1.2.3/broker-lib/zstd-jni-1.5.6-10.jar",
                    "tcpsight-doctor-1.2.3/plugins/anything-2.0.jar")) {
                out.putNextEntry(new ZipEntry(entry));
                out.closeEntry();
            }
        }

        Map<String, List<String>> jars = NoticeCoverage.jarsByFolder(zip);

        assertEquals(
                List.of(
                        "broker-lib/zstd-jni-1.5.6-10.jar",
                        "lib/kafka-clients-extra-1.0.jar",
                        "plugins/ (no section \"tcpsight-doctor-<version>.zip, plugins/\" in NOTICE)"),
                NoticeCoverage.unlisted(zip.getFileName().toString(), "1.2.3", jars, SYNTHETIC_NOTICE));
    }

    @Test
    void anArtifactIdIsTheNameBeforeItsVersion() {
        assertEquals("jackson-core", NoticeCoverage.artifactId("jackson-core-2.21.2.jar"));
        assertEquals("kafka_2.13", NoticeCoverage.artifactId("kafka_2.13-4.3.1.jar"));
        assertEquals("scala-logging_2.13", NoticeCoverage.artifactId("scala-logging_2.13-3.9.6.jar"));
        assertEquals("opentelemetry-proto", NoticeCoverage.artifactId("opentelemetry-proto-1.10.0-alpha.jar"));
        assertEquals("zstd-jni", NoticeCoverage.artifactId("broker-lib/zstd-jni-1.5.6-10.jar"));
    }

    /** broker-lib/ is the test scope less the pom's exclusions (doctor/pom.xml, embedded-broker-lib). */
    @Test
    void everyJarOfTheEmbeddedBrokerIsInNotice() throws IOException {
        String pom = Files.readString(Path.of("pom.xml"));
        String execution = firstMatch(pom, "(?s)<id>embedded-broker-lib</id>(.*?)</execution>");
        List<String> groups = listed(execution, "excludeGroupIds");
        List<String> artifacts = listed(execution, "excludeArtifactIds");
        List<String> classifiers = listed(execution, "excludeClassifiers");
        List<String> brokerLib = new ArrayList<>();
        for (Path jar : testClassPath()) {
            String file = jar.getFileName().toString();
            String path = jar.toString().replace(File.separatorChar, '/');
            boolean excluded = groups.stream().anyMatch(group -> path.contains("/" + group.replace('.', '/') + "/"))
                    || artifacts.contains(NoticeCoverage.artifactId(file))
                    || classifiers.stream().anyMatch(classifier -> file.endsWith("-" + classifier + ".jar"));
            if (!excluded) {
                brokerLib.add(file);
            }
        }
        assertTrue(
                brokerLib.stream().anyMatch(jar -> jar.startsWith("kafka_2.13-")) && brokerLib.size() >= 30,
                "the embedded broker's class path: " + brokerLib);

        String version = firstMatch(Files.readString(Path.of("..", "pom.xml")), "<version>([^<]+)</version>");
        assertEquals(
                List.of(),
                NoticeCoverage.unlisted(
                        "tcpsight-doctor-" + version + ".zip",
                        version,
                        Map.of("broker-lib/", brokerLib),
                        Files.readString(Path.of("..", "NOTICE"))),
                "jars in the doctor's broker-lib/ that NOTICE does not name");
    }

    /** The jars of this test's class path; under surefire's manifest-only jar, the ones its manifest lists. */
    private static List<Path> testClassPath() throws IOException {
        List<Path> jars = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry);
            if (path.getFileName().toString().startsWith("surefirebooter")) {
                try (JarFile booter = new JarFile(path.toFile())) {
                    for (String url : booter.getManifest()
                            .getMainAttributes()
                            .getValue("Class-Path")
                            .split(" ")) {
                        jars.add(Path.of(URI.create(url)));
                    }
                }
            } else {
                jars.add(path);
            }
        }
        jars.removeIf(path -> !path.toString().endsWith(".jar"));
        return jars;
    }

    private static List<String> listed(String execution, String element) {
        Matcher matcher =
                Pattern.compile("<" + element + ">([^<]*)</" + element + ">").matcher(execution);
        List<String> values = new ArrayList<>();
        if (matcher.find()) {
            for (String value : matcher.group(1).split(",")) {
                values.add(value.strip());
            }
        }
        return values;
    }

    private static String firstMatch(String text, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertTrue(matcher.find(), regex);
        return matcher.group(1);
    }
}
