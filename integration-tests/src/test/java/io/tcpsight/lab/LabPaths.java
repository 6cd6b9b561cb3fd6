package io.tcpsight.lab;

import java.nio.file.Path;
import java.nio.file.Paths;

/** Where the build put the lab's parts; set by failsafe (integration-tests/pom.xml). */
public final class LabPaths {
    private LabPaths() {}

    static Path home() {
        return path("tcpsight.lab.home", "/var/lib/tcpsight-lab");
    }

    /** The strict Kubernetes manifest decoder the lab setup builds (lab/kube-validate). */
    public static Path kubeValidate() {
        return home().resolve("bin").resolve("kube-validate");
    }

    /** The lab's OpenTelemetry Collector (lab/otelcol), built by the lab setup. */
    public static Path otelCollector() {
        return home().resolve("bin").resolve("otelcol");
    }

    /** The zoo's Go consumer in franz-go, sarama or segmentio/kafka-go (lab/zoo-go), built by the lab setup. */
    public static Path zooGo() {
        return home().resolve("bin").resolve("zoo-go");
    }

    /** The Python of the venv where the lab setup installed the zoo's kafka-python and confluent-kafka (lab/zoo-python). */
    public static Path zooPython() {
        return home().resolve("zoo-python").resolve("bin").resolve("python");
    }

    /** The node_modules where the lab setup installed the zoo's KafkaJS (lab/zoo-node). */
    public static Path zooNodeModules() {
        return home().resolve("zoo-node").resolve("node_modules");
    }

    /** A script of the zoo's, in the lab folder beside this module's sources. */
    public static Path zooScript(String relative) {
        return path("tcpsight.lab.scripts", "lab").resolve(relative).toAbsolutePath();
    }

    static Path delayLine() {
        return path("tcpsight.lab.delayline", "target/lab-bin/delayline");
    }

    public static Path kafkaLib() {
        return path("tcpsight.lab.kafka.lib", "kafka-runtime/target/lib");
    }

    static Path doctorJar() {
        // the distribution as it ships (doctor/src/main/assembly): what is tested is what an operator unzips
        return UnzippedArchive.of(doctorZip())
                .resolve("tcpsight-doctor-0.1.0-SNAPSHOT/tcpsight-doctor-0.1.0-SNAPSHOT.jar");
    }

    /** The doctor's launcher in the unzipped distribution: what the docs run ({@code bin/tcpsight doctor ...}). */
    static Path doctorLauncher() {
        return doctorJar().resolveSibling("bin").resolve("tcpsight");
    }

    /** The doctor's zip as the build made it (doctor/src/main/assembly). */
    public static Path doctorZip() {
        return path("tcpsight.lab.doctor.zip", "../doctor/target/tcpsight-doctor-0.1.0-SNAPSHOT.zip");
    }

    /** The jars of one release of the version matrix: its line's module under kafka-version-matrix/. */
    static Path kafkaRuntime(String line) {
        return path("tcpsight.lab.kafka.runtimes", "kafka-version-matrix")
                .resolve(line)
                .resolve("target/lib");
    }

    /**
     * What an application that depends on kafka-clients of this line has: kafka-clients, what its pom
     * brings, and a logging binding (kafka-clients-alone/LINE).
     */
    public static Path kafkaClientsAlone(String line) {
        return path("tcpsight.lab.kafka.clients.alone", "kafka-clients-alone")
                .resolve(line)
                .resolve("target/lib");
    }

    /** tcpsight-client-metrics's jar as the build makes it: what README puts beside kafka-clients. */
    public static Path clientMetricsJar() {
        return path("tcpsight.lab.client.jar", "../client-metrics/target/tcpsight-client-metrics-0.1.0-SNAPSHOT.jar");
    }

    /** The lab's client programs (lab-clients), compiled for Java 11, without their dependencies. */
    public static Path labClientClasses() {
        return path("tcpsight.lab.clients.classes", "lab-clients/target/classes");
    }

    /** Micrometer's Prometheus registry and what it brings: what docs/metrics.md puts beside tcpsight's jar for the binder. */
    public static Path micrometerLib() {
        return path("tcpsight.lab.micrometer.lib", "lab-clients/target/micrometer-lib");
    }

    public static Path agentJar() {
        return path("tcpsight.lab.agent.jar", "../broker-agent/target/tcpsight-broker-agent-0.1.0-SNAPSHOT.jar");
    }

    static Path dockerFiles() {
        return path("tcpsight.lab.docker", "docker");
    }

    /** A plugin.path folder holding only the Connect plugin's zip, unzipped as its docs say. */
    static Path connectPlugins() {
        return UnzippedArchive.of(connectZip());
    }

    /** The Connect plugin's zip as the build made it (connect-plugin/src/main/assembly). */
    public static Path connectZip() {
        return path("tcpsight.lab.connect.zip", "../connect-plugin/target/tcpsight-connect-plugin-0.1.0-SNAPSHOT.zip");
    }

    static String baseImage() {
        return System.getProperty("tcpsight.lab.base.image", "tcpsight-lab/jre:17");
    }

    public static Path work() {
        return path("tcpsight.lab.work", "target/lab-work");
    }

    private static Path path(String property, String fallback) {
        return Paths.get(System.getProperty(property, fallback)).toAbsolutePath();
    }
}
