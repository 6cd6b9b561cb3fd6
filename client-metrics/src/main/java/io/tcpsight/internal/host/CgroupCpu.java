package io.tcpsight.internal.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * This process's CPU throttling from its cgroup's {@code cpu.stat}: periods, throttled periods and
 * throttled time. cgroup v2 ({@code nr_throttled}, {@code throttled_usec} in the unified
 * hierarchy) and v1 ({@code nr_throttled}, {@code throttled_time} in nanoseconds, under the
 * {@code cpu} controller). Read from files: no privilege.
 */
public final class CgroupCpu {
    private final String cgroup;
    private final long periods;
    private final long throttledPeriods;
    private final long throttledMicros;
    /** The quota in microseconds per period, -1 when unlimited or unknown. */
    private final long quotaMicros;

    private final long periodMicros;

    public CgroupCpu(
            String cgroup,
            long periods,
            long throttledPeriods,
            long throttledMicros,
            long quotaMicros,
            long periodMicros) {
        this.cgroup = cgroup;
        this.periods = periods;
        this.throttledPeriods = throttledPeriods;
        this.throttledMicros = throttledMicros;
        this.quotaMicros = quotaMicros;
        this.periodMicros = periodMicros;
    }

    /** The cgroup's path as /proc/self/cgroup names it ("/" inside a cgroup namespace). */
    public String cgroup() {
        return cgroup;
    }

    public long periods() {
        return periods;
    }

    public long throttledPeriods() {
        return throttledPeriods;
    }

    public long throttledMicros() {
        return throttledMicros;
    }

    /** The CPU limit in cores, empty when there is none. */
    public Optional<Double> limitCores() {
        return quotaMicros > 0 && periodMicros > 0
                ? Optional.of((double) quotaMicros / periodMicros)
                : Optional.empty();
    }

    /** This process's, from /proc/self/cgroup under /sys/fs/cgroup; empty where none can be read. */
    public static Optional<CgroupCpu> ofThisProcess() {
        return of(Path.of("/proc/self/cgroup"), Path.of("/sys/fs/cgroup"));
    }

    /** From a cgroup membership file and a cgroup mount root (recorded files in tests). */
    public static Optional<CgroupCpu> of(Path membership, Path mountRoot) {
        List<String> lines;
        try {
            lines = Files.readAllLines(membership, StandardCharsets.UTF_8);
        } catch (IOException unreadable) {
            return Optional.empty();
        }
        for (String line : lines) {
            String[] fields = line.split(":", 3);
            if (fields.length == 3 && List.of(fields[1].split(",")).contains("cpu")) {
                // v1: the cpu controller's own hierarchy, mounted as cpu,cpuacct (or cpu)
                for (String mount : new String[] {"cpu,cpuacct", "cpu", "cpuacct,cpu"}) {
                    Optional<CgroupCpu> v1 = read(fields[2], mountRoot.resolve(mount), true);
                    if (v1.isPresent()) {
                        return v1;
                    }
                }
            }
        }
        for (String line : lines) {
            String[] fields = line.split(":", 3);
            if (fields.length == 3 && fields[0].equals("0") && fields[1].isEmpty()) {
                return read(fields[2], mountRoot, false);
            }
        }
        return Optional.empty();
    }

    private static Optional<CgroupCpu> read(String cgroup, Path hierarchy, boolean v1) {
        Path directory = hierarchy.resolve(cgroup.startsWith("/") ? cgroup.substring(1) : cgroup);
        if (!Files.isReadable(directory.resolve("cpu.stat"))) {
            // Inside a cgroup namespace the path may not resolve from the host's view: its root is ours.
            directory = hierarchy;
        }
        List<String> stat;
        try {
            stat = Files.readAllLines(directory.resolve("cpu.stat"), StandardCharsets.UTF_8);
        } catch (IOException unreadable) {
            return Optional.empty();
        }
        long periods = field(stat, "nr_periods");
        long throttled = field(stat, "nr_throttled");
        long micros = v1 ? field(stat, "throttled_time") / 1000 : field(stat, "throttled_usec");
        if (periods < 0 || throttled < 0 || micros < 0) {
            return Optional.empty();
        }
        long quota = -1;
        long period = -1;
        try {
            if (v1) {
                quota = Long.parseLong(
                        Files.readString(directory.resolve("cpu.cfs_quota_us")).trim());
                period = Long.parseLong(
                        Files.readString(directory.resolve("cpu.cfs_period_us")).trim());
            } else {
                String[] max =
                        Files.readString(directory.resolve("cpu.max")).trim().split("\\s+");
                quota = max[0].equals("max") ? -1 : Long.parseLong(max[0]);
                period = Long.parseLong(max[1]);
            }
        } catch (IOException | RuntimeException noLimitFile) {
            // the root cgroup has no limit files: no limit
        }
        return Optional.of(new CgroupCpu(cgroup, periods, throttled, micros, quota, period));
    }

    private static long field(List<String> lines, String name) {
        for (String line : lines) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length == 2 && parts[0].equals(name)) {
                try {
                    return Long.parseLong(parts[1]);
                } catch (NumberFormatException malformed) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
