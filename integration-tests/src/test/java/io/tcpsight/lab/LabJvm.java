package io.tcpsight.lab;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How the lab launches a Java child process: which runtime, which classpath, which JVM options.
 * By default this test JVM's runtime and classpath.
 */
public record LabJvm(Path javaHome, String classpath, List<String> options) {
    public LabJvm {
        options = List.copyOf(options);
    }

    public static LabJvm ofThisJvm() {
        return new LabJvm(Path.of(System.getProperty("java.home")), System.getProperty("java.class.path"), List.of());
    }

    /** The same, on another Java runtime (its home directory). */
    public LabJvm onRuntime(Path home) {
        return new LabJvm(home, classpath, options);
    }

    /**
     * C1 alone and the serial collector, for a JVM whose test claims names, keys, endpoints,
     * restarts or bounds, never a rate or a latency: a short test spends much of a Kafka JVM's CPU
     * compiling with C2 for a steady state it never reaches (docs/lab.md). Never for the lab's
     * throughput or latency claims, nor for a benchmark.
     */
    public static final List<String> SHORT_LIVED = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /** The same with {@link #SHORT_LIVED}'s options. */
    public LabJvm shortLived() {
        return withOptions(SHORT_LIVED);
    }

    public LabJvm withOptions(List<String> more) {
        List<String> all = new ArrayList<>(options);
        all.addAll(more);
        return new LabJvm(javaHome, classpath, all);
    }

    public Path java() {
        return javaHome.resolve("bin").resolve("java");
    }

    List<String> command(Class<?> mainClass, String... args) {
        List<String> command = new ArrayList<>(List.of(java().toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1"));
        command.addAll(options);
        command.addAll(List.of("-cp", classpath, mainClass.getName()));
        command.addAll(Arrays.asList(args));
        return command;
    }
}
