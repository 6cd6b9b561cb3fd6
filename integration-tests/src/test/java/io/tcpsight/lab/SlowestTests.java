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
 * run's total: where the suite's time goes, on every build. Registered through
 * META-INF/services, so every failsafe run has it.
 */
public final class SlowestTests implements TestExecutionListener {
    private static final int SHOWN = 10;
    private final Map<String, Long> started = new ConcurrentHashMap<>();
    private final Map<String, Long> took = new ConcurrentHashMap<>();
    private final Map<String, String> outcome = new ConcurrentHashMap<>();

    @Override
    public void executionStarted(TestIdentifier test) {
        className(test).ifPresent(name -> started.put(name, System.nanoTime()));
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        className(test).ifPresent(name -> {
            Long start = started.remove(name);
            if (start != null) {
                took.put(name, System.nanoTime() - start);
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
        System.out.print(report);
        System.out.flush();
    }

    /** The class a container stands for; empty for methods and engines. */
    private static Optional<String> className(TestIdentifier test) {
        return test.getSource()
                .filter(ClassSource.class::isInstance)
                .map(source -> ((ClassSource) source).getClassName().replace("io.tcpsight.", ""));
    }
}
