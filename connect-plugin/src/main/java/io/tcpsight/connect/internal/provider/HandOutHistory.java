package io.tcpsight.connect.internal.provider;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

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

    void record(Instant at, ProvidedSettings advice) {
        Run last = runs.peekLast();
        if (last != null && last.advice.values().equals(advice.values()) && !at.isBefore(last.first)) {
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
     * builds its clients) and not before {@code notBefore}; when none was, the run in force at the
     * build; unknown build time: every run kept.
     */
    List<ProvidedSettings> around(Optional<Instant> builtAt, Duration lead, Instant notBefore) {
        List<ProvidedSettings> candidates = new ArrayList<>();
        if (builtAt.isEmpty()) {
            runs.forEach(run -> candidates.add(run.advice));
            return candidates;
        }
        Instant build = builtAt.get();
        Instant from = build.minus(lead);
        if (from.isBefore(notBefore)) {
            from = notBefore;
        }
        Run inForce = null;
        for (Run run : runs) {
            if (!run.first.isAfter(build)) {
                inForce = run;
            }
            if (!run.last.isBefore(from) && !run.first.isAfter(build)) {
                candidates.add(run.advice);
            }
        }
        if (candidates.isEmpty()) {
            Run oldest = runs.peekFirst();
            Run chosen = inForce != null ? inForce : oldest;
            if (chosen != null) {
                candidates.add(chosen.advice);
            }
        }
        return candidates;
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
