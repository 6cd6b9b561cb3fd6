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
final class HostStalls {
    private static final Path STAT = Path.of("/proc/stat");
    private static final Path CPU_PRESSURE = Path.of("/proc/pressure/cpu");
    private static final long MILLIS_PER_TICK = 10;

    private final long stealTicks;
    private final long pressureMicros;
    private final long nanoTime;

    private HostStalls(long stealTicks, long pressureMicros, long nanoTime) {
        this.stealTicks = stealTicks;
        this.pressureMicros = pressureMicros;
        this.nanoTime = nanoTime;
    }

    static HostStalls read() {
        return new HostStalls(steal(), pressure(), System.nanoTime());
    }

    /** The stalls since {@code earlier}, as text for a failure message. */
    String since(HostStalls earlier) {
        return String.format(
                "over the %.1f s since the line started the hypervisor took %s ms of the host's CPUs (steal)"
                        + " and the host's tasks waited %s ms for a CPU (PSI cpu some); load average %s",
                (nanoTime - earlier.nanoTime) / 1e9,
                stealTicks < 0 || earlier.stealTicks < 0
                        ? "unknown"
                        : Long.toString((stealTicks - earlier.stealTicks) * MILLIS_PER_TICK),
                pressureMicros < 0 || earlier.pressureMicros < 0
                        ? "unknown"
                        : String.format("%.1f", (pressureMicros - earlier.pressureMicros) / 1000.0),
                loadAverage());
    }

    private static long steal() {
        try {
            // cpu  user nice system idle iowait irq softirq steal ...
            String[] fields = Files.readAllLines(STAT).get(0).trim().split("\\s+");
            return fields.length > 8 ? Long.parseLong(fields[8]) : -1;
        } catch (IOException | RuntimeException unreadable) {
            return -1;
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
