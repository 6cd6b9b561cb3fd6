package io.tcpsight.lab;

import java.lang.management.ManagementFactory;

/**
 * A benchmark measures with the JIT a user's JVM runs, never on the C1 alone the suite's test JVMs
 * take (the parent POM's {@code argLine}).
 */
public final class BenchmarkJit {
    private BenchmarkJit() {}

    /** Fails at once, naming the option and the way out, when this JVM stops compiling below C2. */
    public static void requireFullJit() {
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("-XX:TieredStopAtLevel=") && !argument.equals("-XX:TieredStopAtLevel=4")) {
                throw new IllegalStateException("a benchmark measures with the JIT users run, and this JVM has "
                        + argument + " (the suite's argLine): run it with -DargLine= (docs/benchmarks.md)");
            }
        }
    }
}
