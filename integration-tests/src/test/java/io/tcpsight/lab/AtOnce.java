package io.tcpsight.lab;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * Runs of one test class at once, each in labs of its own, on threads of the class's own (JUnit's
 * pool has two threads, shared with the other lane); a dynamic test per run reports its outcome.
 * Each thread closes the labs it started: the extension closes a test thread's, not these.
 */
public final class AtOnce {
    /** One run: a lab or more, and its claims. */
    public interface Run {
        void run() throws Exception;
    }

    private AtOnce() {}

    /**
     * Starts every run, {@code threads} at a time, and returns a test per run, in the order given,
     * that waits for it at most {@code bound} (then cancels it and fails) and fails with its failure.
     */
    public static Stream<DynamicTest> tests(
            String name, int threads, Duration bound, KernelLabExtension labs, Map<String, Run> runs) {
        AtomicInteger started = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, run -> {
            Thread thread = new Thread(run, name + "-" + started.incrementAndGet());
            thread.setDaemon(true); // a run that ignored its cancel must not hold the test JVM open
            return thread;
        });
        Map<String, Future<?>> running = new LinkedHashMap<>();
        runs.forEach((key, run) -> running.put(key, pool.submit(() -> {
            // a failure to close is added to the run's own, never put in its place
            try (AutoCloseable closing = labs::closeAll) {
                run.run();
            }
            return null;
        })));
        pool.shutdown();
        return running.entrySet().stream()
                .map(entry -> DynamicTest.dynamicTest(entry.getKey(), () -> {
                    try {
                        entry.getValue().get(bound.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (ExecutionException failed) {
                        throw failed.getCause();
                    } catch (TimeoutException late) {
                        entry.getValue().cancel(true);
                        throw new AssertionError(entry.getKey() + " did not end within " + bound, late);
                    }
                }));
    }
}
