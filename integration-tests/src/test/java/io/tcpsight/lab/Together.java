package io.tcpsight.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A test's slow parts side by side where they mostly wait (a JVM's start and its round trips, a
 * client across the line): two at once take little longer than one. Results come in the order
 * given; a failure is thrown once every part has ended, the first one given that failed.
 */
public final class Together {
    private Together() {}

    /** Starts these at once; if one start fails, those started are closed. */
    public static <T extends AutoCloseable> List<T> start(List<Callable<T>> starts) throws Exception {
        Ended<T> ended = await(starts);
        if (ended.failure != null) {
            for (T started : ended.results) {
                try {
                    started.close();
                } catch (Exception closing) {
                    ended.failure.addSuppressed(closing);
                }
            }
            throw rethrown(ended.failure);
        }
        return ended.results;
    }

    /**
     * Starts this while that runs (setup the start does not touch, such as a topic's fill), and returns
     * what started once both have ended; if either fails, what started is closed.
     */
    @SuppressWarnings("unchecked") // the second of the two is the start's own result
    public static <T extends AutoCloseable> T startWhile(Callable<T> start, Callable<Void> alongside) throws Exception {
        List<AutoCloseable> both = start(List.of(
                () -> {
                    alongside.call();
                    return () -> {};
                },
                start::call));
        return (T) both.get(1);
    }

    /** Runs these at once. */
    public static void run(List<Callable<Void>> parts) throws Exception {
        Ended<Void> ended = await(parts);
        if (ended.failure != null) {
            throw rethrown(ended.failure);
        }
    }

    /** What ended well, in order, and the first failure (an interrupt of the caller included). */
    private record Ended<T>(List<T> results, Throwable failure) {}

    private static <T> Ended<T> await(List<Callable<T>> parts) {
        ExecutorService pool = Executors.newFixedThreadPool(parts.size());
        List<Future<T>> pending = new ArrayList<>();
        try {
            for (Callable<T> part : parts) {
                pending.add(pool.submit(part));
            }
            Throwable failure = null;
            for (Future<T> each : pending) {
                try {
                    each.get();
                } catch (ExecutionException failed) {
                    failure = failure != null ? failure : failed.getCause();
                } catch (InterruptedException interrupted) {
                    // the test is being stopped: what has not ended is abandoned, what has is returned
                    Thread.currentThread().interrupt();
                    pending.forEach(part -> part.cancel(true));
                    failure = interrupted;
                    break;
                }
            }
            List<T> results = new ArrayList<>();
            for (Future<T> each : pending) {
                if (each.isDone() && !each.isCancelled()) {
                    try {
                        results.add(each.get());
                    } catch (ExecutionException | InterruptedException endedBadly) {
                        // its failure, if it was the first, is the one thrown
                    }
                }
            }
            return new Ended<>(results, failure);
        } finally {
            pool.shutdownNow();
        }
    }

    private static Exception rethrown(Throwable failure) {
        if (failure instanceof Error error) {
            throw error;
        }
        return failure instanceof Exception exception ? exception : new IllegalStateException(failure);
    }
}
