package io.tcpsight.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Lists every test or class that was skipped (disabled) or aborted (an assumption) when the run ends,
 * and in CI fails the run if there was any: what {@link NoSkipsInCi} cannot turn into a failure
 * (an abort in another extension's callback, a disabled test) still cannot leave CI green. A listener
 * cannot fail a test, so it ends the test JVM with status 1 after saying why; Maven then fails the
 * build. Registered through META-INF/services, so every module's surefire and failsafe run has it.
 */
public final class SkipsFailCiRun implements TestExecutionListener {
    private final List<String> skipped = new CopyOnWriteArrayList<>();

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        skipped.add(test.getDisplayName() + " (" + test.getUniqueId() + "): skipped, " + reason);
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            skipped.add(test.getDisplayName() + " (" + test.getUniqueId() + "): aborted, "
                    + result.getThrowable().map(Throwable::getMessage).orElse("no reason given"));
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        if (skipped.isEmpty()) {
            return;
        }
        StringBuilder report = new StringBuilder(String.format("%n%d tests or classes did not run:%n", skipped.size()));
        skipped.forEach(line -> report.append("  ").append(line).append('\n'));
        System.out.print(report);
        System.out.flush();
        if (CiRun.inCi()) {
            System.err.println("CI=true: a test that did not run is a proof not made; failing the run");
            System.err.flush();
            System.exit(1);
        }
    }
}
