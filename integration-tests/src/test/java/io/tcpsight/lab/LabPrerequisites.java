package io.tcpsight.lab;

import static org.junit.jupiter.api.Assertions.fail;

import io.tcpsight.testing.CiRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * What each lab needs from the machine. Outside CI a missing prerequisite skips the test with
 * the reason printed; with CI=true it fails the build, so a broken CI machine cannot look green.
 */
public final class LabPrerequisites {
    private LabPrerequisites() {}

    public static boolean inCi() {
        return CiRun.inCi();
    }

    public static void requireKernelLab() {
        if (!isRoot()) {
            unavailable("the kernel lab needs root (network namespaces, TUN devices, SCHED_FIFO)");
        }
        if (!Files.exists(Paths.get("/dev/net/tun"))) {
            unavailable("the kernel lab needs /dev/net/tun");
        }
        if (!onPath("ip")) {
            unavailable("the kernel lab needs the ip command (apt-get install iproute2)");
        }
        if (!Files.isExecutable(LabPaths.delayLine())) {
            unavailable(
                    "the delay line was not built at " + LabPaths.delayLine() + " (run mvn verify, which compiles it)");
        }
    }

    public static void requireKafkaRuntime() {
        requireKafkaRuntime(LabPaths.kafkaLib());
    }

    /** A release's jars (the main runtime, or one of kafka-version-matrix/), with the broker among them. */
    static void requireKafkaRuntime(Path lib) {
        try (var jars = Files.list(lib)) {
            if (jars.noneMatch(jar -> jar.getFileName().toString().startsWith("kafka_2.13-"))) {
                unavailable("no Kafka jars in " + lib + " (built by integration-tests/kafka-runtime*)");
            }
        } catch (IOException missing) {
            unavailable("no Kafka runtime at " + lib + " (built by integration-tests/kafka-runtime*): " + missing);
        }
    }

    /**
     * The class path of a plain client as the docs install the reporter: kafka-clients alone of this
     * line (kafka-clients-alone/), tcpsight's jar and the lab's client programs.
     */
    public static void requirePlainClientPath(String line) {
        for (Path needed :
                List.of(LabPaths.kafkaClientsAlone(line), LabPaths.clientMetricsJar(), LabPaths.labClientClasses())) {
            if (!Files.exists(needed)) {
                unavailable("no " + needed + " (mvn package builds it)");
            }
        }
    }

    /** The tcpsight plugin directory (built by connect-plugin) that lab workers put on plugin.path. */
    public static void requireConnectPlugin() {
        try (var plugins = Files.walk(LabPaths.connectPlugins(), 3)) {
            if (plugins.noneMatch(jar -> jar.getFileName().toString().startsWith("tcpsight-connect-plugin-"))) {
                unavailable("no tcpsight plugin under " + LabPaths.connectPlugins()
                        + " (unzipped from the zip mvn package -pl connect-plugin makes)");
            }
        } catch (IOException missing) {
            unavailable("no tcpsight plugin directory at " + LabPaths.connectPlugins() + ": " + missing);
        }
    }

    /** The doctor's jar with its lib/ and broker-lib/ beside it, unzipped from its zip (mvn package -pl doctor). */
    public static void requireDoctor() {
        Path jar = LabPaths.doctorJar();
        if (!Files.isRegularFile(jar)
                || !Files.isDirectory(jar.resolveSibling("broker-lib"))
                || !Files.isExecutable(LabPaths.doctorLauncher())) {
            unavailable("no doctor at " + jar + " with broker-lib/ and an executable bin/tcpsight beside it,"
                    + " unzipped from the zip that mvn package -pl doctor -am makes");
        }
    }

    public static void requireKubeValidate() {
        requireSetupTool(LabPaths.kubeValidate(), "kube-validate");
    }

    public static void requireOtelCollector() {
        requireSetupTool(LabPaths.otelCollector(), "OpenTelemetry Collector");
    }

    /** The client zoo's libraries, which the lab setup installs from the Go module proxy, PyPI and npm. */
    public static void requireClientZoo() {
        requireSetupTool(LabPaths.zooGo(), "zoo-go (franz-go, sarama, segmentio/kafka-go)");
        requireSetupTool(LabPaths.zooPython(), "kafka-python venv");
        if (!Files.isDirectory(LabPaths.zooNodeModules().resolve("kafkajs"))) {
            unavailable("no KafkaJS at " + LabPaths.zooNodeModules() + "; run integration-tests/lab/setup.sh as root");
        }
        requireCommand("node", "Node.js");
    }

    /** A binary the lab setup builds into its home's bin/. */
    private static void requireSetupTool(Path tool, String what) {
        if (!Files.isExecutable(tool)) {
            unavailable("no " + what + " at " + tool + "; run integration-tests/lab/setup.sh as root");
        }
    }

    public static void requireContainerLab() {
        Path socket = LabPaths.home().resolve("docker.sock");
        if (!Files.exists(socket)) {
            unavailable("no lab Docker engine at " + socket + "; run integration-tests/lab/setup.sh as root");
        }
    }

    /**
     * The home of a Java runtime of this feature release: the lab's own (setup.sh unpacks Java 11
     * into the lab home as jre-11) or one under /usr/lib/jvm (this machine's Temurin 25).
     */
    public static Path requireJavaRuntime(int feature) {
        List<Path> candidates = new ArrayList<>(List.of(LabPaths.home().resolve("jre-" + feature)));
        try (var installed = Files.list(Paths.get("/usr/lib/jvm"))) {
            installed.sorted().forEach(candidates::add);
        } catch (IOException none) {
            // no system JDKs: only the lab's own
        }
        for (Path home : candidates) {
            if (Files.isExecutable(home.resolve("bin/java")) && featureOf(home) == feature) {
                return home;
            }
        }
        unavailable("no Java " + feature + " runtime in " + LabPaths.home().resolve("jre-" + feature)
                + " or /usr/lib/jvm" + (feature == 11 ? " (integration-tests/lab/setup.sh unpacks one)" : ""));
        return null;
    }

    /** JAVA_VERSION="11.0.24" in a runtime's release file: 11; -1 without one. */
    private static int featureOf(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=\"")) {
                    String version = line.substring("JAVA_VERSION=\"".length());
                    return Integer.parseInt(version.split("[.\"]")[0]);
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            return -1;
        }
        return -1;
    }

    /** A command the lab runs, e.g. prometheus or kcat, installed by integration-tests/lab/setup.sh. */
    public static void requireCommand(String command, String what) {
        if (!onPath(command)) {
            unavailable(what + " is not installed: no " + command
                    + " on PATH (integration-tests/lab/setup.sh installs it)");
        }
    }

    private static boolean isRoot() {
        try {
            List<String> status = Files.readAllLines(Paths.get("/proc/self/status"));
            return status.stream().anyMatch(line -> line.startsWith("Uid:") && line.split("\\s+")[2].equals("0"));
        } catch (IOException unreadable) {
            return false;
        }
    }

    private static boolean onPath(String command) {
        for (String directory : System.getenv()
                .getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
                .split(":")) {
            if (Files.isExecutable(Paths.get(directory, command))) {
                return true;
            }
        }
        return false;
    }

    /** A cgroup v1 cpu hierarchy this process may make cgroups in (root on a v1 or hybrid host). */
    public static void requireCgroupV1Cpu(Path hierarchy) {
        if (!Files.isWritable(hierarchy.resolve("cgroup.procs"))) {
            unavailable("no writable cgroup v1 cpu hierarchy at " + hierarchy + " (needs root on a cgroup v1 host)");
        }
    }

    private static void unavailable(String reason) {
        if (inCi()) {
            fail(reason + " (CI=true: a missing lab prerequisite fails the build)");
        }
        System.out.println("SKIPPED (lab prerequisite missing): " + reason);
        Assumptions.abort(reason);
    }
}
