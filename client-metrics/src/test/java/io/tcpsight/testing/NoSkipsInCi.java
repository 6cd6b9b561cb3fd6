package io.tcpsight.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * In CI, an assumption that does not hold fails its test instead of skipping it: a missing prerequisite
 * (the native library, a tool, root) must turn CI red, not leave a green run that proved nothing.
 * Outside CI the test is skipped with its reason, as JUnit does. Registered for every test of every
 * module through JUnit's extension auto-detection (the parent pom turns it on).
 */
public final class NoSkipsInCi implements TestExecutionExceptionHandler, LifecycleMethodExecutionExceptionHandler {
    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable thrown) throws Throwable {
        throw inCi(context, thrown);
    }

    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable thrown) throws Throwable {
        throw inCi(context, thrown);
    }

    @Override
    public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable thrown) throws Throwable {
        throw inCi(context, thrown);
    }

    static Throwable inCi(ExtensionContext context, Throwable thrown) {
        if (thrown instanceof TestAbortedException && CiRun.inCi()) {
            AssertionError failure = new AssertionError("CI=true: " + context.getDisplayName()
                    + " could not run here, and in CI that fails the run: " + thrown.getMessage());
            failure.initCause(thrown);
            return failure;
        }
        return thrown;
    }
}
