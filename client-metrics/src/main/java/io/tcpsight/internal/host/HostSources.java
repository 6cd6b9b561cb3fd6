package io.tcpsight.internal.host;

import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the host's counters come from: the devices of this network namespace, their sysfs
 * statistics, the qdisc dump, the drivers' statistics, softnet and this process's cgroup. An
 * interface so that tests can give recorded outputs; {@code io.tcpsight.internal.tcp.LiveHostSources} reads
 * the real ones.
 */
public interface HostSources {
    /** A network device of this namespace. */
    final class NetDevice {
        private final String name;
        private final int index;
        private final List<InetAddress> addresses;

        public NetDevice(String name, int index, List<InetAddress> addresses) {
            this.name = name;
            this.index = index;
            this.addresses = List.copyOf(addresses);
        }

        public String name() {
            return name;
        }

        public int index() {
            return index;
        }

        public List<InetAddress> addresses() {
            return addresses;
        }
    }

    List<NetDevice> devices() throws IOException;

    /** /sys/class/net/DEV/statistics/*, by file name. */
    Map<String, Long> deviceStatistics(String device) throws IOException;

    List<QdiscStats.Qdisc> qdiscs();

    /** The driver's statistics by name; empty when it has none. */
    Map<String, Long> driverStatistics(String device);

    Optional<SoftnetStat> softnet();

    Optional<CgroupCpu> cgroup();

    /** The host's CPU time and this process's; empty where unknown (recorded sources that leave it out). */
    default Optional<HostCpuTimes> cpuTimes() {
        return Optional.empty();
    }

    /**
     * Each of this process's threads' wait for a CPU so far, by thread id ({@link ThreadWaits});
     * empty where unknown. Read only in rounds whose CPUs were busy: it costs a read per thread.
     */
    default Optional<Map<Long, Long>> threadWaits() {
        return Optional.empty();
    }
}
