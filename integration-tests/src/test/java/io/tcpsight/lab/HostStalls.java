package io.tcpsight.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What kept the host's own tasks from a CPU between two readings: the hypervisor's steal time
 * (/proc/stat, in clock ticks of 10 ms) and the kernel's pressure stall total for CPU
 * (/proc/pressure/cpu "some", in microseconds). An idle delay line that held a packet for
 * milliseconds was starved of its CPU; these say whether the host as a whole was, so a failing
 * reading names its cause rather than leave it to a guess (docs/lab.md).
 */
public final class HostStalls {
    private static final Path STAT = Path.of("/proc/stat");
    private static final Path CPU_PRESSURE = Path.of("/proc/pressure/cpu");
    private static final long MILLIS_PER_TICK = 10;

    private final long stealTicks;
    private final long pressureMicros;
    private final long nanoTime;
    /** The CPUs' idle and iowait ticks, and all their ticks, summed over every CPU; -1 when unreadable. */
    private final long idleTicks;

    private final long allTicks;

    private HostStalls(long[] cpu, long pressureMicros, long nanoTime) {
        this.stealTicks = cpu.length > 7 ? cpu[7] : -1;
        this.idleTicks = cpu.length > 4 ? cpu[3] + cpu[4] : -1;
        long all = 0;
        for (long ticks : cpu) {
            all += ticks;
        }
        this.allTicks = cpu.length > 4 ? all : -1;
        this.pressureMicros = pressureMicros;
        this.nanoTime = nanoTime;
    }

    public static HostStalls read() {
        return new HostStalls(cpuTicks(), pressure(), System.nanoTime());
    }

    /**
     * What the host's CPUs did since {@code earlier}, for a test whose claim is a rate the host must
     * keep up with: the share of their time they were idle (none left means the CPUs, not the path,
     * may have set the rate), with the steal, the pressure stall total and the load average.
     */
    public String busySince(HostStalls earlier) {
        double share = idleShareSince(earlier);
        String idle = Double.isNaN(share) ? "unknown" : String.format("%.0f%%", 100.0 * share);
        return String.format("the host's CPUs were idle %s of the %.1f s; ", idle, (nanoTime - earlier.nanoTime) / 1e9)
                + stalls(earlier);
    }

    /** The share of the host's CPU time that was idle since {@code earlier}; NaN where /proc/stat was unreadable. */
    public double idleShareSince(HostStalls earlier) {
        return idleTicks < 0 || earlier.idleTicks < 0 || allTicks <= earlier.allTicks
                ? Double.NaN
                : (idleTicks - earlier.idleTicks) / (double) (allTicks - earlier.allTicks);
    }

    /**
     * One step of a timeline, as text: the CPUs' idle share, the steal and the pressure stall total
     * since {@code earlier} (a second before, say), so a rate that dipped can be set beside them.
     */
    public String stepSince(HostStalls earlier) {
        double share = idleShareSince(earlier);
        return String.format(
                "idle %s steal %s psi %s",
                Double.isNaN(share) ? "?" : String.format("%.0f%%", 100.0 * share),
                stealMillisSince(earlier, "?"),
                pressureMillisSince(earlier, "?", "%.0f"));
    }

    /** The stalls since {@code earlier}, when {@code what} began, as text for a failure message. */
    String since(HostStalls earlier, String what) {
        return String.format("over the %.1f s since %s ", (nanoTime - earlier.nanoTime) / 1e9, what) + stalls(earlier);
    }

    private String stalls(HostStalls earlier) {
        return String.format(
                "the hypervisor took %s ms of the host's CPUs (steal)"
                        + " and the host's tasks waited %s ms for a CPU (PSI cpu some); load average %s",
                stealMillisSince(earlier, "unknown"), pressureMillisSince(earlier, "unknown", "%.1f"), loadAverage());
    }

    private String stealMillisSince(HostStalls earlier, String unknown) {
        return stealTicks < 0 || earlier.stealTicks < 0
                ? unknown
                : Long.toString((stealTicks - earlier.stealTicks) * MILLIS_PER_TICK);
    }

    private String pressureMillisSince(HostStalls earlier, String unknown, String format) {
        return pressureMicros < 0 || earlier.pressureMicros < 0
                ? unknown
                : String.format(format, (pressureMicros - earlier.pressureMicros) / 1000.0);
    }

    /** The all-CPU line's ticks: user nice system idle iowait irq softirq steal ...; empty when unreadable. */
    private static long[] cpuTicks() {
        try {
            String[] fields = Files.readAllLines(STAT).get(0).trim().split("\\s+");
            // guest and guest_nice (fields 9 and 10) are counted in user and nice already
            long[] ticks = new long[Math.min(fields.length - 1, 8)];
            for (int i = 0; i < ticks.length; i++) {
                ticks[i] = Long.parseLong(fields[i + 1]);
            }
            return ticks;
        } catch (IOException | RuntimeException unreadable) {
            return new long[0];
        }
    }

    private static long pressure() {
        try {
            List<String> lines = Files.readAllLines(CPU_PRESSURE);
            for (String field : lines.get(0).split("\\s+")) {
                if (field.startsWith("total=")) {
                    return Long.parseLong(field.substring("total=".length()));
                }
            }
            return -1;
        } catch (IOException | RuntimeException unreadable) {
            return -1;
        }
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException unreadable) {
            return "unknown";
        }
    }
}
