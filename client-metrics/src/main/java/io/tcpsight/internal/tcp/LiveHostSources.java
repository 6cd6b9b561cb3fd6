package io.tcpsight.internal.tcp;

import com.sun.management.OperatingSystemMXBean;
import io.tcpsight.internal.host.CgroupCpu;
import io.tcpsight.internal.host.HostCpuTimes;
import io.tcpsight.internal.host.HostSources;
import io.tcpsight.internal.host.QdiscStats;
import io.tcpsight.internal.host.SoftnetStat;
import io.tcpsight.internal.host.ThreadWaits;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The host's real counters: this namespace's devices and files, and the kernel calls of the native
 * shim. For one thread (the sampling loop's).
 */
public final class LiveHostSources implements HostSources {
    /** One buffer for every kernel call of a round: the sampling thread is the only caller. */
    private final byte[] scratch = HostKernelCalls.scratch();

    @Override
    public List<NetDevice> devices() throws IOException {
        List<NetDevice> devices = new ArrayList<>();
        for (NetworkInterface device : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            devices.add(
                    new NetDevice(device.getName(), device.getIndex(), Collections.list(device.getInetAddresses())));
        }
        return devices;
    }

    @Override
    public Map<String, Long> deviceStatistics(String device) throws IOException {
        Map<String, Long> statistics = new HashMap<>();
        Path directory = Path.of("/sys/class/net", device, "statistics");
        for (String name : List.of("tx_dropped", "tx_packets")) {
            statistics.put(
                    name,
                    Long.parseLong(Files.readString(directory.resolve(name)).trim()));
        }
        return statistics;
    }

    @Override
    public List<QdiscStats.Qdisc> qdiscs() {
        if (!NativeTcp.availability().isAvailable()) {
            return List.of(); // rtnetlink needs the native library; the component's start line said it is missing
        }
        return QdiscStats.decode(HostKernelCalls.qdiscDump(scratch));
    }

    @Override
    public Map<String, Long> driverStatistics(String device) {
        if (!NativeTcp.availability().isAvailable()) {
            return Map.of(); // the ethtool ioctl likewise
        }
        return HostKernelCalls.ethtoolStats(device, scratch);
    }

    @Override
    public Optional<SoftnetStat> softnet() {
        return SoftnetStat.read(Path.of("/proc/net/softnet_stat"));
    }

    @Override
    public Optional<HostCpuTimes> cpuTimes() {
        return Optional.of(HostCpuTimes.read(Path.of("/proc/stat"), processCpuNanos()));
    }

    /**
     * This process's CPU time (OperatingSystemMXBean's, in HotSpot and OpenJ9: a system call, where
     * ProcessHandle's info reads /proc/self/stat, cmdline and status each round); null where the
     * runtime has no jdk.management module (a jlink image without it) or does not tell.
     */
    private static Long processCpuNanos() {
        try {
            Object system = ManagementFactory.getOperatingSystemMXBean();
            if (system instanceof OperatingSystemMXBean) {
                long nanos = ((OperatingSystemMXBean) system).getProcessCpuTime();
                return nanos >= 0 ? nanos : null;
            }
        } catch (LinkageError | RuntimeException absent) {
            // the process's share is then unknown; the host's CPUs are still read
        }
        return null;
    }

    @Override
    public Optional<Map<Long, Long>> threadWaits() {
        return Optional.of(ThreadWaits.read(Path.of("/proc/self/task")));
    }

    @Override
    public Optional<CgroupCpu> cgroup() {
        return CgroupCpu.ofThisProcess();
    }
}
