package io.tcpsight.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Prints the ten slowest test classes of the run when it ends, with their wall times and the
 * run's total, then every class's start and end from the plan's start: where the suite's time
 * goes, and where a lane waited, on every build. Registered through META-INF/services, so every
 * failsafe run has it.
 */
public final class SlowestTests implements TestExecutionListener {
    private static final int SHOWN = 10;
    private final Map<String, Long> started = new ConcurrentHashMap<>();
    private final Map<String, Long> took = new ConcurrentHashMap<>();
    private final Map<String, String> outcome = new ConcurrentHashMap<>();
    private final Map<String, long[]> span = new ConcurrentHashMap<>();
    private volatile long planStart = System.nanoTime();

    @Override
    public void testPlanExecutionStarted(TestPlan plan) {
        planStart = System.nanoTime();
    }

    @Override
    public void executionStarted(TestIdentifier test) {
        className(test).ifPresent(name -> started.put(name, System.nanoTime()));
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        className(test).ifPresent(name -> {
            Long start = started.remove(name);
            if (start != null) {
                long end = System.nanoTime();
                took.put(name, end - start);
                span.put(name, new long[] {start - planStart, end - planStart});
                outcome.put(name, result.getStatus().name().toLowerCase());
            }
        });
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        if (took.isEmpty()) {
            return;
        }
        List<Map.Entry<String, Long>> slowest = new ArrayList<>(took.entrySet());
        slowest.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        long total = took.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder report = new StringBuilder(String.format(
                "%nThe %d slowest test classes of %d (%.0f s in all):%n",
                Math.min(SHOWN, slowest.size()), slowest.size(), total / 1e9));
        for (Map.Entry<String, Long> entry : slowest.subList(0, Math.min(SHOWN, slowest.size()))) {
            report.append(String.format(
                    "  %6.1f s  %s (%s)%n", entry.getValue() / 1e9, entry.getKey(), outcome.get(entry.getKey())));
        }
        report.append(String.format("Every class from the run's start (m:ss), in the order they started:%n"));
        List<Map.Entry<String, long[]>> byStart = new ArrayList<>(span.entrySet());
        byStart.sort((one, other) -> Long.compare(one.getValue()[0], other.getValue()[0]));
        for (Map.Entry<String, long[]> entry : byStart) {
            report.append(String.format(
                    "  %s-%s  %s%n", clock(entry.getValue()[0]), clock(entry.getValue()[1]), entry.getKey()));
        }
        System.out.print(report);
        System.out.flush();
    }

    private static String clock(long nanos) {
        long seconds = Math.max(0, nanos / 1_000_000_000L);
        return String.format("%d:%02d", seconds / 60, seconds % 60);
    }

    /** The class a container stands for; empty for methods and engines. */
    private static Optional<String> className(TestIdentifier test) {
        return test.getSource()
                .filter(ClassSource.class::isInstance)
                .map(source -> ((ClassSource) source).getClassName().replace("io.tcpsight.", ""));
    }
}
