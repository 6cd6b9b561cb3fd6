package io.tcpsight.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabJvm;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.LabPrerequisites;
import io.tcpsight.lab.LabProcess;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.MicrometerApplication;
import io.tcpsight.lab.PlainClients;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The reporter as README installs it for plain clients, run as a user would: an admin client, a
 * producer and a consumer (PlainClients) in a JVM whose class path is kafka-clients of one release
 * with what its own pom brings, a logging binding, tcpsight-client-metrics's jar, and nothing else
 * (no Micrometer: every other test has it). Each client must construct, move its records, and its
 * reporter must name its own sockets by byte counts, 20 ms across the delay line.
 */
// Names, records and a scrape, no time or rate: in a lab of its own beside the lab lane (HostCpu, LaneOrder)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class ShippedClassPathLabIT {
    @RegisterExtension
    static final KernelLabExtension LAB = new KernelLabExtension();

    private static final int RECORDS = 200;
    private static final String BUSY_SECONDS = "8";

    /**
     * Four JVMs at once against one broker 20 ms away, each a class path the docs give: the oldest
     * client release on the oldest Java; the newest on the newest Java with the option the docs give
     * for Java 24 and later; the same without it, the positive control for every check that no JEP 472
     * warning appears (the JDK warns once, tcpsight names the option once: three reporters share one
     * load); and a broken optional dependency, a micrometer-core whose MeterBinder is no class file,
     * with the OTLP push asked for (each reporter says once that the push is off, and why).
     */
    @Test
    void theReporterBesideKafkaClientsAloneRunsItsClientsOnEveryJavaAndRelease(@TempDir Path directory)
            throws Exception {
        Path broken = directory.resolve("micrometer-core-1.17.2.jar");
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(broken))) {
            jar.putNextEntry(new JarEntry("io/micrometer/core/instrument/binder/MeterBinder.class"));
            jar.write("not a class file".getBytes(StandardCharsets.US_ASCII));
            jar.closeEntry();
        }
        // names, records and a scrape, no rate: the broker compiles with C1 alone (LabJvm.SHORT_LIVED)
        KafkaBroker broker =
                LAB.shortLivedKafkaBrokerBehind(Link.rtt(Duration.ofMillis(20)).rateMbit(200));
        Started oldest = start(broker, "oldest", "3.6", 11, true, List.of());
        Started newest = start(broker, "newest", "4.4", 25, true, List.of());
        Started noOption = start(broker, "no-option", "4.4", 25, false, List.of());
        Started brokenMicrometer = start(
                broker,
                "broken-micrometer",
                "4.4",
                Runtime.version().feature(),
                true,
                List.of(broken),
                "tcpsight.otlp.enabled=true");

        LabProcess application = startMicrometerApplication(broker);

        for (Started started : List.of(oldest, newest)) {
            Run run = started.finish();
            run.assertEveryReporterNamedItsOwnSockets();
            assertFalse(run.output.contains(" is off"), run.output);
        }

        Run control = noOption.finish();
        control.assertEveryReporterNamedItsOwnSockets();
        assertEquals(
                1,
                control.lines()
                        .filter(line -> line.startsWith("WARNING: A restricted method"))
                        .count(),
                control.output);
        assertEquals(
                1,
                control.lines()
                        .filter(line ->
                                line.contains("tcpsight: Java 25 warned when tcpsight loaded its native library")
                                        && line.contains("--enable-native-access=ALL-UNNAMED"))
                        .count(),
                control.output);

        Run withBroken = brokenMicrometer.finish();
        withBroken.assertEveryReporterNamedItsOwnSockets();
        for (String clientId : PlainClients.CLIENT_IDS) {
            List<String> said = withBroken
                    .lines()
                    .filter(line -> line.contains("client.id=" + clientId + ": tcpsight.otlp.enabled=true needs"))
                    .collect(Collectors.toList());
            assertEquals(1, said.size(), clientId + ":\n" + withBroken.output);
            assertTrue(said.get(0).contains("io.micrometer:micrometer-core (java.lang.ClassFormatError"), said.get(0));
        }
        assertFalse(withBroken.output.contains(" is off"), withBroken.output);

        assertTheApplicationsRegistryHoldsTcpsightsMeters(application);
    }

    /**
     * An application with its own Micrometer registry, its clients bound as docs/metrics.md writes it
     * (the docs' lines are the application's), on kafka-clients of the newest release, tcpsight's
     * jar and Micrometer's Prometheus registry: its scrape holds tcpsight's meters for each client,
     * tagged with its client.id, with rounds recorded and the consumer's own connections counted,
     * and none of the consumer's once its binder is closed.
     */
    private static void assertTheApplicationsRegistryHoldsTcpsightsMeters(LabProcess application) throws Exception {
        int exit = application.awaitExit(Duration.ofSeconds(180));
        String output = application.output();
        System.out.println("an application with its own registry:\n"
                + output.lines()
                        .filter(line -> line.startsWith("scrape tcpsight_connections")
                                || line.startsWith("scrape tcpsight_round_duration_seconds_count")
                                || line.startsWith("left ")
                                || line.startsWith("WARNING:")
                                || line.contains("tcpsight:"))
                        .collect(Collectors.joining("\n")));
        assertEquals(0, exit, output);
        assertTrue(output.lines().noneMatch(line -> line.startsWith("WARNING:")), "a JVM warning:\n" + output);
        for (String clientId : MicrometerApplication.CLIENT_IDS) {
            String tag = "{client_id=\"" + clientId + "\"}";
            assertTrue(
                    scraped(output, "tcpsight_round_duration_seconds_count" + tag) >= 2,
                    "rounds of " + clientId + " in the application's registry:\n" + output);
            // the gauge of the binder against what that client's own reporter says over JMX
            double tracked = Double.parseDouble(output.lines()
                    .filter(line -> line.startsWith("tracked " + clientId + " "))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no JMX reading of " + clientId + ":\n" + output))
                    .substring(("tracked " + clientId + " ").length()));
            assertTrue(tracked > 0, clientId + " tracks no connection:\n" + output);
            assertEquals(
                    tracked,
                    scraped(output, "tcpsight_connections" + tag),
                    0.0,
                    clientId + "'s connections in the application's registry against its reporter's own count");
        }
        assertTrue(output.lines().anyMatch(line -> line.equals("left 0")), output);
        String docs = Files.readString(Path.of("..", "docs", "metrics.md"));
        String source = Files.readString(
                Path.of("lab-clients", "src", "main", "java", "io", "tcpsight", "lab", "MicrometerApplication.java"));
        // the lines between the markers, as a page shows them: without the method's indentation
        String snippet = source.substring(
                                source.indexOf("// docs/metrics.md: begin\n") + "// docs/metrics.md: begin\n".length(),
                                source.indexOf("        // docs/metrics.md: end"))
                        .stripTrailing()
                        .stripIndent()
                + "\n";
        assertTrue(
                docs.contains("```java\n" + snippet + "```\n"),
                "docs/metrics.md gives the lines the application runs:\n" + snippet);
    }

    /** The value of the one scraped sample of that name and labels; fails when the scrape has none. */
    private static double scraped(String output, String sample) {
        String line = output.lines()
                .filter(candidate -> candidate.startsWith("scrape " + sample + " "))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + sample + " in the application's scrape:\n" + output));
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }

    private static LabProcess startMicrometerApplication(KafkaBroker broker) throws Exception {
        List<String> classPath = new ArrayList<>(jars(LabPaths.kafkaClientsAlone("4.4")));
        classPath.add(LabPaths.clientMetricsJar().toString());
        classPath.addAll(jars(LabPaths.micrometerLib()));
        assertTrue(
                classPath.stream().anyMatch(jar -> jar.contains("micrometer-registry-prometheus-")),
                classPath.toString());
        classPath.add(LabPaths.labClientClasses().toString());
        LabJvm jvm = new LabJvm(
                Path.of(System.getProperty("java.home")),
                String.join(File.pathSeparator, classPath),
                Runtime.version().feature() >= 24 ? List.of("--enable-native-access=ALL-UNNAMED") : List.of());
        return LAB.latest()
                .javaInClient(
                        "micrometer-application",
                        jvm,
                        MicrometerApplication.class,
                        broker.bootstrapServers(),
                        "micrometer-application",
                        BUSY_SECONDS);
    }

    private record Run(String output) {
        Stream<String> lines() {
            return output.lines();
        }

        void assertEveryReporterNamedItsOwnSockets() {
            assertTrue(lines().anyMatch(line -> line.matches("produced \\d+") && count(line) >= RECORDS), output);
            assertTrue(lines().anyMatch(line -> line.matches("consumed \\d+") && count(line) >= RECORDS), output);
            for (String clientId : PlainClients.CLIENT_IDS) {
                List<String> served = lines().filter(line -> line.startsWith("connection " + clientId + " "))
                        .collect(Collectors.toList());
                assertTrue(
                        served.stream()
                                .anyMatch(line -> line.contains(" client.id=" + clientId + " ")
                                        && line.contains(" owner=byte-counts ")),
                        "the reporter of " + clientId + " named none of its sockets:\n" + output);
                for (String other : PlainClients.CLIENT_IDS) {
                    if (!other.equals(clientId)) {
                        assertTrue(
                                served.stream().noneMatch(line -> line.contains(" client.id=" + other + " ")),
                                "the reporter of " + clientId + " named a socket of " + other + ":\n" + output);
                    }
                }
            }
        }

        private static long count(String line) {
            return Long.parseLong(line.substring(line.indexOf(' ') + 1));
        }
    }

    /** A JVM of PlainClients started, and what it ran on. */
    private record Started(LabProcess process, String what, List<String> classPath, boolean warningsExpected) {
        /** Waits for it: exit 0, no crash of a client, and no JVM warning unless this run is the control. */
        Run finish() throws Exception {
            int exit = process.awaitExit(Duration.ofSeconds(180));
            String output = process.output();
            System.out.println(what + ", class path " + classPath + ":\n"
                    + output.lines()
                            .filter(l -> l.startsWith("connection ")
                                    || l.startsWith("produced ")
                                    || l.startsWith("consumed ")
                                    || l.startsWith("WARNING:")
                                    || l.contains("tcpsight"))
                            .collect(Collectors.joining("\n")));
            assertEquals(0, exit, what + ":\n" + output);
            if (!warningsExpected) {
                assertTrue(output.lines().noneMatch(l -> l.startsWith("WARNING:")), "a JVM warning:\n" + output);
            }
            assertFalse(output.contains("NoClassDefFoundError: io/micrometer"), output);
            assertFalse(output.contains("Failed to construct"), output);
            return new Run(output);
        }
    }

    /**
     * PlainClients on kafka-clients LINE alone, tcpsight's jar and these extra jars, on that Java
     * release, on a topic of its own; the settings go to every client. On Java 24 and later the JVM runs
     * with the option the docs give unless {@code nativeAccessOption} is false.
     */
    private static Started start(
            KafkaBroker broker,
            String name,
            String line,
            int java,
            boolean nativeAccessOption,
            List<Path> extraJars,
            String... settings)
            throws Exception {
        LabPrerequisites.requirePlainClientPath(line);
        Path javaHome = java == Runtime.version().feature()
                ? Path.of(System.getProperty("java.home"))
                : LabPrerequisites.requireJavaRuntime(java);
        List<String> classPath = new ArrayList<>();
        List<String> kafkaJars = jars(LabPaths.kafkaClientsAlone(line));
        assertTrue(
                kafkaJars.stream().anyMatch(jar -> jar.contains("kafka-clients-" + line + ".")),
                "kafka-clients " + line + " in " + kafkaJars);
        assertTrue(
                kafkaJars.stream().noneMatch(jar -> jar.contains("micrometer")),
                "Micrometer has no place on this class path: " + kafkaJars);
        classPath.addAll(kafkaJars);
        classPath.add(LabPaths.clientMetricsJar().toString());
        classPath.add(LabPaths.labClientClasses().toString());
        extraJars.forEach(jar -> classPath.add(jar.toString()));
        List<String> arguments = new ArrayList<>(
                List.of(broker.bootstrapServers(), "plain-" + name, Integer.toString(RECORDS), BUSY_SECONDS));
        arguments.addAll(List.of(settings));
        boolean withOption = java >= 24 && nativeAccessOption;
        LabJvm jvm = new LabJvm(
                javaHome,
                String.join(File.pathSeparator, classPath),
                withOption ? List.of("--enable-native-access=ALL-UNNAMED") : List.of());
        LabProcess process = LAB.latest()
                .javaInClient("plain-clients-" + name, jvm, PlainClients.class, arguments.toArray(new String[0]));
        String what = name + ": kafka-clients " + line + " alone on Java " + java
                + (java >= 24 ? (withOption ? " with " : " without ") + "--enable-native-access" : "");
        return new Started(process, what, classPath, java >= 24 && !nativeAccessOption);
    }

    private static List<String> jars(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(file -> file.toString().endsWith(".jar"))
                    .map(Path::toString)
                    .sorted()
                    .collect(Collectors.toList());
        }
    }
}
