package io.tcpsight.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;

/**
 * The lab's one way to wait: polls a probe until it yields a value. A probe returns null (or
 * throws an IOException: the endpoint is not up yet) for "not yet". A timeout fails with what was
 * awaited and the caller's diagnosis of the last state, never with a bare timeout.
 */
public final class LabAwait {
    private final String what;
    private Duration timeout = Duration.ofSeconds(60);
    private Duration poll = Duration.ofMillis(200);
    private BooleanSupplier giveUp = () -> false;
    private Supplier<String> diagnosis = () -> "";

    private LabAwait(String what) {
        this.what = what;
    }

    public static LabAwait await(String what) {
        return new LabAwait(what);
    }

    public LabAwait atMost(Duration value) {
        timeout = value;
        return this;
    }

    public LabAwait every(Duration value) {
        poll = value;
        return this;
    }

    /** Stops waiting at once when this holds, e.g. the process under test died. */
    public LabAwait unless(BooleanSupplier value) {
        giveUp = value;
        return this;
    }

    /** What the failure message adds: the state that was seen last. */
    public LabAwait explainedBy(Supplier<String> value) {
        diagnosis = value;
        return this;
    }

    /** The probe's first non-null value. */
    public <T> T until(Callable<T> probe) {
        AtomicReference<Exception> lastFailure = new AtomicReference<>();
        AtomicReference<T> found = new AtomicReference<>();
        AtomicInteger answered = new AtomicInteger();
        try {
            Awaitility.await(what)
                    .atMost(timeout)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(poll)
                    .failFast(what + ": gave up", giveUp::getAsBoolean)
                    .until(() -> {
                        try {
                            found.set(probe.call());
                            // an error from before the probe last answered is not why it failed
                            lastFailure.set(null);
                            answered.incrementAndGet();
                        } catch (IOException | UncheckedIOException notYet) {
                            lastFailure.set(notYet);
                        }
                        return found.get() != null;
                    });
            return found.get();
        } catch (ConditionTimeoutException | TerminalFailureException failed) {
            throw new AssertionError(
                    what + " not within " + timeout + failureSuffix(lastFailure.get(), answered.get()), failed);
        }
    }

    /** Waits until the condition holds. */
    public void untilTrue(Callable<Boolean> condition) {
        until(() -> Objects.equals(condition.call(), Boolean.TRUE) ? Boolean.TRUE : null);
    }

    private String failureSuffix(Exception lastFailure, int answered) {
        String seen = diagnosis.get();
        String probes = answered == 0
                ? "; the probe never answered"
                : "; the probe answered " + answered + " times" + (lastFailure == null ? ", the last time too" : "");
        return probes
                + (lastFailure == null ? "" : "; its last error: " + lastFailure)
                + (seen.isEmpty() ? "" : "; " + seen);
    }
}
