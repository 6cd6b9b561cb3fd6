package io.tcpsight.internal.host;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * How long each of this process's threads has waited for a CPU while it could run: the second
 * field of /proc/self/task/TID/schedstat (run_delay, nanoseconds, what the kernel's scheduler
 * statistics keep for every task). A host whose CPUs are all busy may still leave this process's
 * own CPUs free (a cpuset of its own): its threads then never wait, and this tells the two apart.
 */
public final class ThreadWaits {
    /**
     * A JVM with more threads than this (a leak) has its waits left unread, said once: reading
     * them would cost about 16 µs each in every busy round, and a part of them would come and go
     * as threads end.
     */
    public static final int MAX_THREADS = 4096;

    private ThreadWaits() {}

    /**
     * Wait per thread id: one small read per thread into one buffer (a broker holds 100-300
     * threads); a thread that ends between the listing and its read is left out. An
     * {@link UncheckedIOException} where the directory cannot be listed, an
     * {@link IllegalStateException} over {@link #MAX_THREADS} threads.
     */
    public static Map<Long, Long> read(Path taskDirectory) {
        return read(taskDirectory, MAX_THREADS);
    }

    static Map<Long, Long> read(Path taskDirectory, int maxThreads) {
        String[] tasks = taskDirectory.toFile().list();
        if (tasks == null) {
            throw new UncheckedIOException(new IOException("cannot list " + taskDirectory));
        }
        if (tasks.length > maxThreads) {
            throw new IllegalStateException(
                    tasks.length + " threads in " + taskDirectory + ", more than " + maxThreads + " are not read");
        }
        Map<Long, Long> waits = new HashMap<>();
        byte[] buffer = new byte[128];
        String directory = taskDirectory.toString();
        for (String task : tasks) {
            try (FileInputStream schedstat = new FileInputStream(directory + "/" + task + "/schedstat")) {
                int length = schedstat.read(buffer);
                if (length > 0) {
                    waits.put(Long.parseLong(task), parse(new String(buffer, 0, length, StandardCharsets.US_ASCII)));
                }
            } catch (IOException | RuntimeException gone) {
                // a thread that ended between the listing and the read
            }
        }
        return waits;
    }

    /** "run_time run_delay timeslices": the second field. */
    static long parse(String schedstat) {
        String[] fields = schedstat.trim().split("\\s+");
        if (fields.length < 2) {
            throw new IllegalArgumentException("a schedstat of " + fields.length + " fields: " + schedstat);
        }
        return Long.parseLong(fields[1]);
    }

    /**
     * Seconds waited from {@code earlier} to {@code now}, summed over threads: a thread in both
     * counts its rise, a thread new since then all of its wait (it began within the interval).
     */
    static double waitedSeconds(Map<Long, Long> earlier, Map<Long, Long> now) {
        long nanos = 0;
        for (Map.Entry<Long, Long> thread : now.entrySet()) {
            Long then = earlier.get(thread.getKey());
            nanos += then != null && thread.getValue() >= then ? thread.getValue() - then : thread.getValue();
        }
        return nanos / 1e9;
    }
}
