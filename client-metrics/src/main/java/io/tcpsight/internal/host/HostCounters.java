package io.tcpsight.internal.host;

import io.tcpsight.internal.model.HostSignals;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * One reading of the host's counters, totals since boot (or since a device or qdisc was made);
 * {@link #since} turns two readings into the rises of {@link HostSignals}. A source that fails
 * leaves its part out and says why once through the given reporter.
 */
public final class HostCounters {
    /** Devices read per round: a host with hundreds (a container host's veths) costs no more. */
    public static final int MAX_DEVICES = 16;

    private final long nanos;
    private final List<Device> devices;
    private final SoftnetStat softnet;
    private final CgroupCpu cgroup;
    private final HostCpuTimes cpu;

    HostCounters(long nanos, List<Device> devices, SoftnetStat softnet, CgroupCpu cgroup, HostCpuTimes cpu) {
        this.nanos = nanos;
        this.devices = devices;
        this.softnet = softnet;
        this.cgroup = cgroup;
        this.cpu = cpu;
    }

    /** One device's totals. */
    public static final class Device {
        final String name;
        final List<InetAddress> addresses;
        final String rootQdisc;
        final long qdiscDrops;
        final long qdiscOverlimits;
        final long qdiscRequeues;
        final long txDropped;
        final long txPackets;
        final Map<String, Long> allowance;
        final List<Long> txQueuePackets;

        Device(
                String name,
                List<InetAddress> addresses,
                String rootQdisc,
                long[] qdisc,
                long txDropped,
                long txPackets,
                Map<String, Long> allowance,
                List<Long> txQueuePackets) {
            this.name = name;
            this.addresses = addresses;
            this.rootQdisc = rootQdisc;
            this.qdiscDrops = qdisc[0];
            this.qdiscOverlimits = qdisc[1];
            this.qdiscRequeues = qdisc[2];
            this.txDropped = txDropped;
            this.txPackets = txPackets;
            this.allowance = allowance;
            this.txQueuePackets = txQueuePackets;
        }

        public String name() {
            return name;
        }

        public long qdiscDrops() {
            return qdiscDrops;
        }

        public long driverTxDropped() {
            return txDropped;
        }
    }

    public static HostCounters read(HostSources sources, Consumer<String> unreadable) {
        return read(sources, unreadable, null);
    }

    /**
     * One reading; this process's threads' waits for a CPU only where the CPUs were busy since
     * {@code earlier} (idle {@link HostSignals.Cpu#BUSY_IDLE_SHARE} of their time or less), the
     * only rounds that judge them, as a read per thread costs about 16 µs.
     */
    public static HostCounters read(HostSources sources, Consumer<String> unreadable, HostCounters earlier) {
        List<QdiscStats.Qdisc> qdiscs;
        try {
            qdiscs = sources.qdiscs();
        } catch (RuntimeException failed) {
            unreadable.accept("qdisc statistics: " + failed.getMessage());
            qdiscs = List.of();
        }
        List<HostSources.NetDevice> found;
        try {
            found = new ArrayList<>(sources.devices());
        } catch (Exception failed) {
            unreadable.accept("network devices: " + failed);
            found = new ArrayList<>();
        }
        // Devices with addresses first (they carry Kafka's connections), then by name; loopback never drops.
        found.sort(Comparator.comparing(
                        (HostSources.NetDevice device) -> device.addresses().isEmpty())
                .thenComparing(HostSources.NetDevice::name));
        List<Device> devices = new ArrayList<>();
        for (HostSources.NetDevice device : found) {
            if (devices.size() == MAX_DEVICES) {
                break;
            }
            if (device.name().equals("lo")) {
                continue;
            }
            devices.add(device(sources, device, qdiscs, unreadable));
        }
        HostCpuTimes cpu = null;
        try {
            cpu = sources.cpuTimes().orElse(null);
            if (cpu != null
                    && earlier != null
                    && earlier.cpu != null
                    && cpu.idleShareSince(earlier.cpu) <= HostSignals.Cpu.BUSY_IDLE_SHARE) {
                try {
                    cpu = cpu.withThreadWaits(sources.threadWaits().orElse(null));
                } catch (RuntimeException | LinkageError failed) {
                    unreadable.accept("threads' waits for a CPU: " + failed.getMessage());
                }
            }
        } catch (RuntimeException | LinkageError failed) {
            unreadable.accept("CPU time: " + failed.getMessage());
        }
        return new HostCounters(
                System.nanoTime(),
                devices,
                sources.softnet().orElse(null),
                sources.cgroup().orElse(null),
                cpu);
    }

    private static Device device(
            HostSources sources,
            HostSources.NetDevice device,
            List<QdiscStats.Qdisc> qdiscs,
            Consumer<String> unreadable) {
        Map<String, Long> statistics = new HashMap<>();
        try {
            statistics = sources.deviceStatistics(device.name());
        } catch (Exception failed) {
            unreadable.accept("statistics of " + device.name() + ": " + failed);
        }
        Map<String, Long> driver;
        try {
            driver = sources.driverStatistics(device.name());
        } catch (RuntimeException none) {
            driver = Map.of(); // most virtual devices have no driver statistics
        }
        String rootKind = "";
        long[] root = new long[3];
        TreeMap<Integer, Long> mqChildren = new TreeMap<>();
        int rootMajor = -1;
        for (QdiscStats.Qdisc qdisc : qdiscs) {
            if (qdisc.deviceIndex() == device.index() && qdisc.isRoot()) {
                rootKind = qdisc.kind();
                // A root qdisc's counters hold its children's (mq sums its per-queue qdiscs when dumped).
                root = new long[] {qdisc.drops(), qdisc.overlimits(), qdisc.requeues()};
                rootMajor = qdisc.handle() >>> 16;
            }
        }
        if (rootKind.equals("mq") || rootKind.equals("mqprio")) {
            for (QdiscStats.Qdisc qdisc : qdiscs) {
                if (qdisc.deviceIndex() == device.index() && !qdisc.isRoot() && (qdisc.parent() >>> 16) == rootMajor) {
                    mqChildren.put((qdisc.parent() & 0xFFFF) - 1, qdisc.packets());
                }
            }
        }
        List<Long> queues = DriverStats.txQueuePackets(driver);
        if (queues.isEmpty() && !mqChildren.isEmpty() && mqChildren.firstKey() >= 0) {
            queues = new ArrayList<>();
            for (int queue = 0; queue <= mqChildren.lastKey(); queue++) {
                queues.add(mqChildren.getOrDefault(queue, 0L));
            }
        }
        return new Device(
                device.name(),
                device.addresses(),
                rootKind,
                root,
                statistics.getOrDefault("tx_dropped", 0L),
                statistics.getOrDefault("tx_packets", 0L),
                DriverStats.allowanceCounters(driver),
                queues);
    }

    /** The rises from {@code earlier} to this reading; a counter that went down was reset and counts from 0. */
    public HostSignals since(HostCounters earlier) {
        double seconds = Math.max(1e-3, (nanos - earlier.nanos) / 1e9);
        Map<String, Device> before = new HashMap<>();
        earlier.devices.forEach(device -> before.put(device.name, device));
        List<HostSignals.Device> rises = new ArrayList<>();
        for (Device now : devices) {
            Device then = before.get(now.name);
            if (then == null) {
                continue; // new this interval: its totals are not this interval's
            }
            Map<String, Long> allowance = new TreeMap<>();
            now.allowance.forEach((name, value) -> {
                long rise = rise(value, then.allowance.getOrDefault(name, 0L));
                if (rise > 0) {
                    allowance.put(name, rise);
                }
            });
            List<Long> queues = new ArrayList<>();
            if (now.txQueuePackets.size() == then.txQueuePackets.size()) {
                for (int queue = 0; queue < now.txQueuePackets.size(); queue++) {
                    queues.add(rise(now.txQueuePackets.get(queue), then.txQueuePackets.get(queue)));
                }
            }
            rises.add(new HostSignals.Device(
                    now.name,
                    now.addresses,
                    now.rootQdisc,
                    rise(now.qdiscDrops, then.qdiscDrops),
                    rise(now.qdiscOverlimits, then.qdiscOverlimits),
                    rise(now.qdiscRequeues, then.qdiscRequeues),
                    rise(now.txDropped, then.txDropped),
                    rise(now.txPackets, then.txPackets),
                    allowance,
                    queues));
        }
        Long softnetDropped =
                softnet != null && earlier.softnet != null ? rise(softnet.dropped(), earlier.softnet.dropped()) : null;
        HostSignals.Throttling throttling = null;
        if (cgroup != null && earlier.cgroup != null && cgroup.cgroup().equals(earlier.cgroup.cgroup())) {
            throttling = new HostSignals.Throttling(
                    cgroup.cgroup(),
                    rise(cgroup.periods(), earlier.cgroup.periods()),
                    rise(cgroup.throttledPeriods(), earlier.cgroup.throttledPeriods()),
                    rise(cgroup.throttledMicros(), earlier.cgroup.throttledMicros()) / 1e6,
                    cgroup.limitCores().orElse(null));
        }
        return new HostSignals(seconds, rises, softnetDropped, throttling, cpuSince(earlier));
    }

    /** The CPUs' shares over the interval; null when either reading lacks them or no tick passed. */
    private HostSignals.Cpu cpuSince(HostCounters earlier) {
        if (cpu == null || earlier.cpu == null) {
            return null;
        }
        if (cpu.threadWaits() != null && earlier.cpu.threadWaits() == null) {
            return null; // the threads' waits were first read now, the CPUs busy since the round before: judged next
        }
        long[] ticks = cpu.ticksSince(earlier.cpu);
        if (ticks == null) {
            return null;
        }
        long all = ticks[0] + ticks[1] + ticks[2];
        Double process = null;
        if (cpu.processNanos() != null && earlier.cpu.processNanos() != null) {
            double processSeconds = rise(cpu.processNanos(), earlier.cpu.processNanos()) / 1e9;
            process = Math.min(1.0, processSeconds / (all / HostCpuTimes.TICKS_PER_SECOND));
        }
        Double waiting = null;
        if (cpu.threadWaits() != null && earlier.cpu.threadWaits() != null) {
            double seconds = Math.max(1e-3, (nanos - earlier.nanos) / 1e9);
            waiting = ThreadWaits.waitedSeconds(earlier.cpu.threadWaits(), cpu.threadWaits()) / seconds;
        }
        return new HostSignals.Cpu(cpu.cores(), (double) ticks[1] / all, (double) ticks[2] / all, process, waiting);
    }

    private static long rise(long now, long then) {
        return now >= then ? now - then : now;
    }

    /** Totals for the meters: per device qdisc drops and driver drops, softnet drops, throttling. */
    public List<Device> devices() {
        return devices;
    }

    public Optional<SoftnetStat> softnet() {
        return Optional.ofNullable(softnet);
    }

    public Optional<CgroupCpu> cgroup() {
        return Optional.ofNullable(cgroup);
    }
}
