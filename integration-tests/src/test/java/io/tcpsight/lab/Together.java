package io.tcpsight.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Starts of a test's JVMs (brokers, workers) side by side: each is a JVM and round trips, mostly
 * waiting, so two at once take little longer than one. The list returned is in the order given;
 * if one start fails, those started are closed and the first failure is thrown.
 */
public final class Together {
    private Together() {}

    public static <T extends AutoCloseable> List<T> start(List<Callable<T>> starts) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(starts.size());
        try {
            List<Future<T>> pending = new ArrayList<>();
            for (Callable<T> start : starts) {
                pending.add(pool.submit(start));
            }
            List<T> started = new ArrayList<>();
            Throwable failure = null;
            for (Future<T> each : pending) {
                try {
                    started.add(each.get());
                } catch (ExecutionException failed) {
                    failure = failure != null ? failure : failed.getCause();
                } catch (InterruptedException interrupted) {
                    // the test is being stopped: what has started is closed, what has not is abandoned
                    pending.forEach(start -> start.cancel(true));
                    for (Future<T> done : pending) {
                        if (done.isDone() && !done.isCancelled()) {
                            try {
                                started.add(done.get());
                            } catch (ExecutionException | InterruptedException | CancellationException gone) {
                                // nothing to close
                            }
                        }
                    }
                    closeAll(started, interrupted);
                    throw interrupted;
                }
            }
            if (failure == null) {
                return started;
            }
            closeAll(started, failure);
            if (failure instanceof Exception exception) {
                throw exception;
            }
            if (failure instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(failure);
        } finally {
            pool.shutdownNow();
        }
    }

    private static void closeAll(List<? extends AutoCloseable> started, Throwable failure) {
        for (AutoCloseable each : started) {
            try {
                each.close();
            } catch (Exception closing) {
                failure.addSuppressed(closing);
            }
        }
    }
}
