package io.tcpsight.internal.monitor;

import io.tcpsight.internal.config.TcpsightConfig;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs one sampling round at a time on its own daemon thread, every interval ± jitter. A
 * failing round is logged once per kind of failure and the loop goes on: the host process must
 * never notice tcpsight.
 */
public final class SamplingLoop implements AutoCloseable {
    private final Thread thread;
    private final long intervalNanos;
    private final double jitter;
    private final Runnable round;
    private final Consumer<String> warn;
    private final Set<String> reported = new HashSet<>();
    private volatile boolean running = true;

    public SamplingLoop(String threadName, TcpsightConfig config, Runnable round, Consumer<String> warn) {
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(config.get(TcpsightConfig.SAMPLE_INTERVAL_MS));
        this.jitter = config.get(TcpsightConfig.SAMPLE_JITTER);
        this.round = round;
        this.warn = warn;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    public SamplingLoop start() {
        thread.start();
        return this;
    }

    /** The next delay: the interval stretched or shrunk by a random share up to the jitter. */
    static long nextDelayNanos(long intervalNanos, double jitter, double random) {
        return (long) (intervalNanos * (1 + jitter * (2 * random - 1)));
    }

    private void run() {
        while (running) {
            try {
                round.run();
            } catch (Throwable failure) {
                String kind = failure.getClass().getName() + ": " + failure.getMessage();
                if (reported.add(kind)) {
                    warn.accept("tcpsight sampling round failed, continuing (reported once): " + kind);
                }
                if (failure instanceof VirtualMachineError) {
                    running = false;
                    return;
                }
            }
            try {
                TimeUnit.NANOSECONDS.sleep(nextDelayNanos(
                        intervalNanos, jitter, ThreadLocalRandom.current().nextDouble()));
            } catch (InterruptedException stopped) {
                return;
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(TimeUnit.NANOSECONDS.toMillis(intervalNanos) + 5000);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
