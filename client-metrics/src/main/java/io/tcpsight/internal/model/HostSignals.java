package io.tcpsight.internal.model;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What this host did to packets and to this process in the last interval, for telling a loss on
 * this host from a loss on the path: each device's egress drops (its qdiscs, its driver, a cloud
 * allowance), its transmit queues, the receive backlog, and this process's CPU throttling. Rises
 * over the interval, not totals.
 */
public final class HostSignals {
    private final double seconds;
    private final List<Device> devices;
    private final Long softnetDropped;
    private final Throttling throttling;
    private final Cpu cpu;

    public HostSignals(double seconds, List<Device> devices, Long softnetDropped, Throttling throttling) {
        this(seconds, devices, softnetDropped, throttling, null);
    }

    public HostSignals(double seconds, List<Device> devices, Long softnetDropped, Throttling throttling, Cpu cpu) {
        this.seconds = seconds;
        this.devices = List.copyOf(devices);
        this.softnetDropped = softnetDropped;
        this.throttling = throttling;
        this.cpu = cpu;
    }

    public double seconds() {
        return seconds;
    }

    public List<Device> devices() {
        return devices;
    }

    /** Packets the receive backlog dropped (net.core.netdev_max_backlog), all CPUs. */
    public OptionalLong softnetDropped() {
        return OptionalValues.orEmpty(softnetDropped);
    }

    public Optional<Throttling> throttling() {
        return Optional.ofNullable(throttling);
    }

    /** The host's CPUs over the interval; empty where /proc/stat could not be read. */
    public Optional<Cpu> cpu() {
        return Optional.ofNullable(cpu);
    }

    /** The device that holds this local address; empty when none does (or it is unknown). */
    public Optional<Device> deviceOf(InetAddress local) {
        if (local == null) {
            return Optional.empty();
        }
        for (Device device : devices) {
            if (device.addresses().contains(local)) {
                return Optional.of(device);
            }
        }
        return Optional.empty();
    }

    /** One network device's rises over the interval. */
    public static final class Device {
        private final String name;
        private final List<InetAddress> addresses;
        private final String rootQdisc;
        private final long qdiscDrops;
        private final long qdiscOverlimits;
        private final long qdiscRequeues;
        private final long driverTxDropped;
        private final long txPackets;
        private final Map<String, Long> allowanceExceeded;
        private final List<Long> txQueuePackets;

        public Device(
                String name,
                List<InetAddress> addresses,
                String rootQdisc,
                long qdiscDrops,
                long qdiscOverlimits,
                long qdiscRequeues,
                long driverTxDropped,
                long txPackets,
                Map<String, Long> allowanceExceeded,
                List<Long> txQueuePackets) {
            this.name = name;
            this.addresses = List.copyOf(addresses);
            this.rootQdisc = rootQdisc;
            this.qdiscDrops = qdiscDrops;
            this.qdiscOverlimits = qdiscOverlimits;
            this.qdiscRequeues = qdiscRequeues;
            this.driverTxDropped = driverTxDropped;
            this.txPackets = txPackets;
            this.allowanceExceeded = Map.copyOf(allowanceExceeded);
            this.txQueuePackets = List.copyOf(txQueuePackets);
        }

        public String name() {
            return name;
        }

        public List<InetAddress> addresses() {
            return addresses;
        }

        /** The root qdisc's kind ("fq_codel", "tbf", "mq", "noqueue"), "" when unknown. */
        public String rootQdisc() {
            return rootQdisc;
        }

        /** Packets the device's qdiscs dropped. */
        public long qdiscDrops() {
            return qdiscDrops;
        }

        /** Times a shaping qdisc held a packet back over its rate. */
        public long qdiscOverlimits() {
            return qdiscOverlimits;
        }

        /** Packets the driver handed back to the qdisc (a full device queue). */
        public long qdiscRequeues() {
            return qdiscRequeues;
        }

        /** tx_dropped of /sys/class/net/DEV/statistics: the driver's own drops. */
        public long driverTxDropped() {
            return driverTxDropped;
        }

        public long txPackets() {
            return txPackets;
        }

        /** Cloud allowance counters that rose (ENA's bw_out_allowance_exceeded, ...), by driver name. */
        public Map<String, Long> allowanceExceeded() {
            return allowanceExceeded;
        }

        /** Packets sent per transmit queue, where the driver or the mq qdisc tells; empty otherwise. */
        public List<Long> txQueuePackets() {
            return txQueuePackets;
        }

        /** Everything this host dropped on the way out: qdiscs, driver, allowances. */
        public long egressDrops() {
            long allowance = 0;
            for (Map.Entry<String, Long> counter : allowanceExceeded.entrySet()) {
                if (!counter.getKey().startsWith("bw_in")) {
                    allowance += counter.getValue();
                }
            }
            return qdiscDrops + driverTxDropped + allowance;
        }
    }

    /** This process's cgroup CPU throttling over the interval. */
    public static final class Throttling {
        private final String cgroup;
        private final long periods;
        private final long throttledPeriods;
        private final double throttledSeconds;
        private final Double limitCores;

        public Throttling(
                String cgroup, long periods, long throttledPeriods, double throttledSeconds, Double limitCores) {
            this.cgroup = cgroup;
            this.periods = periods;
            this.throttledPeriods = throttledPeriods;
            this.throttledSeconds = throttledSeconds;
            this.limitCores = limitCores;
        }

        public String cgroup() {
            return cgroup;
        }

        public long periods() {
            return periods;
        }

        public long throttledPeriods() {
            return throttledPeriods;
        }

        public double throttledSeconds() {
            return throttledSeconds;
        }

        public Optional<Double> limitCores() {
            return Optional.ofNullable(limitCores);
        }
    }

    /**
     * The host's CPUs over the interval: how much of their time they had nothing to run, how much
     * a hypervisor took, and how much this process ran, shares of the CPUs' whole time (cores
     * times the interval); and how long this process's threads waited for one.
     */
    public static final class Cpu {
        /** CPUs idle this share of their time or less had none to spare: host-cpu-busy judges such intervals. */
        public static final double BUSY_IDLE_SHARE = 0.05;

        private final int cores;
        private final double idleShare;
        private final double stealShare;
        private final Double processShare;
        private final Double waitingThreads;

        public Cpu(int cores, double idleShare, double stealShare, Double processShare, Double waitingThreads) {
            this.cores = cores;
            this.idleShare = idleShare;
            this.stealShare = stealShare;
            this.processShare = processShare;
            this.waitingThreads = waitingThreads;
        }

        public int cores() {
            return cores;
        }

        /** idle and iowait: the CPUs had nothing to run. */
        public double idleShare() {
            return idleShare;
        }

        /** A hypervisor ran something else while these CPUs wanted to run. */
        public double stealShare() {
            return stealShare;
        }

        /** This process's CPU time, a share of all the CPUs' time; empty where the JVM cannot tell it. */
        public Optional<Double> processShare() {
            return Optional.ofNullable(processShare);
        }

        /**
         * How many of this process's threads waited for a CPU while they could run, on average over
         * the interval (seconds waited, summed over threads, a second); empty where unknown.
         */
        public Optional<Double> waitingThreads() {
            return Optional.ofNullable(waitingThreads);
        }
    }
}
