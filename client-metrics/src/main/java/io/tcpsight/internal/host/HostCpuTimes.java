package io.tcpsight.internal.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The host's CPU time since boot, from the first line of /proc/stat (in USER_HZ, 100 a second on
 * every Linux architecture this runs on), summed over its CPUs, and this process's own CPU time:
 * two readings tell how much of an interval the CPUs had nothing to run, how much of the rest
 * this process took, and how long its threads waited for one ({@link ThreadWaits}).
 */
public final class HostCpuTimes {
    /** /proc/stat counts in USER_HZ, which the kernel keeps at 100 for user space whatever its own tick. */
    static final double TICKS_PER_SECOND = 100;

    private final int cores;
    private final long busyTicks;
    private final long idleTicks;
    private final long stealTicks;
    private final Long processNanos;
    private final Map<Long, Long> threadWaits;

    HostCpuTimes(
            int cores,
            long busyTicks,
            long idleTicks,
            long stealTicks,
            Long processNanos,
            Map<Long, Long> threadWaits) {
        this.cores = cores;
        this.busyTicks = busyTicks;
        this.idleTicks = idleTicks;
        this.stealTicks = stealTicks;
        this.processNanos = processNanos;
        this.threadWaits = threadWaits;
    }

    public int cores() {
        return cores;
    }

    /** user, nice, system, irq and softirq: time the CPUs ran something (guest time is inside user). */
    long busyTicks() {
        return busyTicks;
    }

    /** idle and iowait: time the CPUs had nothing to run (a task waiting for I/O does not want a CPU). */
    long idleTicks() {
        return idleTicks;
    }

    /** Time a hypervisor ran something else while this host's CPUs wanted to run. */
    long stealTicks() {
        return stealTicks;
    }

    Long processNanos() {
        return processNanos;
    }

    /** Each thread's wait for a CPU so far, by thread id; null where unknown. */
    Map<Long, Long> threadWaits() {
        return threadWaits;
    }

    /** This reading with its threads' waits. */
    HostCpuTimes withThreadWaits(Map<Long, Long> waits) {
        return new HostCpuTimes(cores, busyTicks, idleTicks, stealTicks, processNanos, waits);
    }

    /**
     * The ticks from {@code earlier} to this reading: busy, idle and steal; null where they are
     * not of the same CPUs (one brought on or off line), went down, or no tick passed.
     */
    long[] ticksSince(HostCpuTimes earlier) {
        long busy = busyTicks - earlier.busyTicks;
        long idle = idleTicks - earlier.idleTicks;
        long steal = stealTicks - earlier.stealTicks;
        if (cores != earlier.cores || busy < 0 || idle < 0 || steal < 0 || busy + idle + steal <= 0) {
            return null;
        }
        return new long[] {busy, idle, steal};
    }

    /** The share of the CPUs' time idle from {@code earlier} to this reading; 1 where {@link #ticksSince} has none. */
    double idleShareSince(HostCpuTimes earlier) {
        long[] ticks = ticksSince(earlier);
        return ticks == null ? 1 : (double) ticks[1] / (ticks[0] + ticks[1] + ticks[2]);
    }

    /**
     * This host's reading; an {@link UncheckedIOException} or {@link IllegalArgumentException} where
     * /proc/stat cannot be read or is not what Linux writes (not Linux, a masked /proc), which the
     * round says once and leaves out.
     */
    public static HostCpuTimes read(Path procStat, Long processNanos) {
        try {
            return parse(Files.readAllLines(procStat, StandardCharsets.US_ASCII), processNanos);
        } catch (IOException unreadable) {
            throw new UncheckedIOException(procStat + ": " + unreadable, unreadable);
        }
    }

    /**
     * The "cpu" line's columns: user nice system idle iowait irq softirq steal (guest and
     * guest_nice are already inside user and nice); a kernel older than 2.6.11 has no steal
     * column, which counts as 0. The "cpuN" lines count the CPUs.
     */
    static HostCpuTimes parse(List<String> lines, Long processNanos) {
        long[] totals = null;
        int cores = 0;
        for (String line : lines) {
            if (line.startsWith("cpu ")) {
                String[] columns = line.trim().split("\\s+");
                if (columns.length < 8) {
                    throw new IllegalArgumentException("a cpu line of " + columns.length + " columns: " + line);
                }
                totals = new long[8];
                for (int column = 1; column < Math.min(columns.length, 9); column++) {
                    totals[column - 1] = Long.parseLong(columns[column]);
                }
            } else if (line.startsWith("cpu")) {
                cores++;
            }
        }
        if (totals == null || cores == 0) {
            throw new IllegalArgumentException("no cpu line, or no cpuN line, in /proc/stat");
        }
        long busy = totals[0] + totals[1] + totals[2] + totals[5] + totals[6];
        return new HostCpuTimes(cores, busy, totals[3] + totals[4], totals[7], processNanos, null);
    }
}
