package io.tcpsight.connect.internal.provider;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * What the provider handed out, and when: runs of equal values, each with its first and last
 * hand-out. Re-adaptation compares each task with the values handed out when that task was built,
 * not with the last values handed out to anyone: a connector's or another task's later build must
 * not hide a task that still runs with older values. Bounded: the oldest runs go first.
 */
final class HandOutHistory {
    /** Far more changes of advice than a worker sees between two re-adaptation checks. */
    static final int MAX_RUNS = 64;

    private final Deque<Run> runs = new ArrayDeque<>();

    /** Kept in time order: a hand-out timed before the last run began is counted at that run's end. */
    void record(Instant time, ProvidedSettings advice) {
        Run last = runs.peekLast();
        Instant at = last != null && time.isBefore(last.last) ? last.last : time;
        if (last != null && last.advice.values().equals(advice.values())) {
            if (at.isAfter(last.last)) {
                last.last = at;
            }
            return;
        }
        runs.addLast(new Run(advice, at));
        while (runs.size() > MAX_RUNS) {
            runs.removeFirst();
        }
    }

    boolean isEmpty() {
        return runs.isEmpty();
    }

    /**
     * The advice a task built at {@code builtAt} may have been built with: every run handed out
     * from {@code lead} before its build (Connect resolves a task's config in the thread that then
     * builds its clients at once) or from {@code notBefore}, if later, to the build; when none was,
     * the run in force at the build (a build slower than the lead); with none in force then either
     * (the history begins later), every run kept.
     */
    List<ProvidedSettings> around(Instant builtAt, Duration lead, Instant notBefore) {
        Instant from = builtAt.minus(lead);
        if (from.isBefore(notBefore)) {
            from = notBefore;
        }
        List<ProvidedSettings> candidates = new ArrayList<>();
        Run inForce = null;
        for (Run run : runs) {
            if (run.first.isAfter(builtAt)) {
                break;
            }
            inForce = run;
            if (!run.last.isBefore(from)) {
                candidates.add(run.advice);
            }
        }
        if (!candidates.isEmpty()) {
            return candidates;
        }
        return inForce == null ? all() : List.of(inForce.advice);
    }

    /** Every run kept, oldest first. */
    List<ProvidedSettings> all() {
        List<ProvidedSettings> every = new ArrayList<>();
        runs.forEach(run -> every.add(run.advice));
        return every;
    }

    private static final class Run {
        final ProvidedSettings advice;
        final Instant first;
        Instant last;

        Run(ProvidedSettings advice, Instant at) {
            this.advice = advice;
            this.first = at;
            this.last = at;
        }
    }
}
