package io.tcpsight.internal.diagnose.host;

import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.HostSignals;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Is it this host or the path? Findings from the host's own counters over the last interval,
 * each tied to the Kafka connections that retransmitted in the same interval. Pure functions of
 * the rises ({@link HostSignals}) and those connections.
 */
public final class HostSignalRules {
    /** A quarter of the periods throttled: the process waits for CPU about as often as it runs. */
    static final double CRITICAL_THROTTLED_SHARE = 0.25;
    /** One percent of a device's packets dropped on the way out. */
    static final double CRITICAL_DROP_RATIO = 0.01;
    /** A transmit queue with this share of a device's packets carries nearly everything. */
    static final double SKEW_SHARE = 0.9;
    /** Fewer packets in an interval say nothing about how the queues are used. */
    static final long SKEW_MIN_PACKETS = 1000;

    private static final int NAMED_CONNECTIONS = 5;

    private HostSignalRules() {}

    /**
     * A connection that sent in the interval, as the round saw it: the packets a device dropped on the
     * way out were its own when it was busy sending or retransmitted then. (A qdisc drop of this
     * host's own TCP segment is often no retransmission: the stack takes the segment back and sends
     * it later with a smaller window, so a busy sender is hurt without sending.)
     */
    public static final class Sending {
        /** Busy at least half the interval: a sender whose packets the device carried. */
        static final double BUSY = 0.5;

        private final ConnectionIdentity identity;
        private final long retransmitted;
        private final double busyRatio;

        public Sending(ConnectionIdentity identity, long retransmitted, double busyRatio) {
            this.identity = identity;
            this.retransmitted = retransmitted;
            this.busyRatio = busyRatio;
        }

        boolean hurt() {
            return retransmitted > 0 || busyRatio >= BUSY;
        }

        public ConnectionIdentity identity() {
            return identity;
        }

        public long retransmitted() {
            return retransmitted;
        }

        InetAddress local() {
            return identity.local().map(InetSocketAddress::getAddress).orElse(null);
        }
    }

    /**
     * @param sending the named connections that sent in the interval (retransmitted, or busy)
     * @param host the identity a finding carries when no Kafka connection was hurt (this JVM's role)
     */
    public static List<Finding> evaluate(HostSignals signals, List<Sending> sending, ConnectionIdentity host) {
        List<Finding> findings = new ArrayList<>();
        for (HostSignals.Device device : signals.devices()) {
            hostEgressDrops(signals, device, sending, host).ifPresent(findings::add);
            txQueueSkew(signals, device, host).ifPresent(findings::add);
        }
        cpuThrottled(signals, sending, host).ifPresent(findings::add);
        return findings;
    }

    static Optional<Finding> hostEgressDrops(
            HostSignals signals, HostSignals.Device device, List<Sending> sending, ConnectionIdentity host) {
        long drops = device.egressDrops();
        if (drops == 0) {
            return Optional.empty();
        }
        List<Sending> hurt = new ArrayList<>();
        for (Sending connection : sending) {
            if (connection.hurt()
                    && connection.local() != null
                    && device.addresses().contains(connection.local())) {
                hurt.add(connection);
            }
        }
        hurt.sort(Comparator.comparingLong(Sending::retransmitted).reversed());
        double ratio = (double) drops / Math.max(1, device.txPackets() + drops);
        Severity severity =
                hurt.isEmpty() ? Severity.INFO : ratio >= CRITICAL_DROP_RATIO ? Severity.CRITICAL : Severity.WARN;
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("device", device.name(), ""));
        if (!device.rootQdisc().isEmpty()) {
            evidence.add(new Evidence("qdisc", device.rootQdisc(), ""));
        }
        evidence.add(new Evidence("egressDrops", drops, "packets per interval"));
        evidence.add(new Evidence("dropsPerSecond", drops / signals.seconds(), "packets/s"));
        evidence.add(new Evidence("dropRatio", ratio, "ratio of packets"));
        evidence.add(new Evidence("qdiscDrops", device.qdiscDrops(), "packets"));
        evidence.add(new Evidence("qdiscOverlimits", device.qdiscOverlimits(), "times"));
        evidence.add(new Evidence("qdiscRequeues", device.qdiscRequeues(), "packets"));
        evidence.add(new Evidence("driverTxDropped", device.driverTxDropped(), "packets"));
        for (Map.Entry<String, Long> allowance : device.allowanceExceeded().entrySet()) {
            evidence.add(new Evidence(allowance.getKey(), allowance.getValue(), "packets"));
        }
        addHurt(evidence, hurt);
        List<Setting> settings = new ArrayList<>();
        if (device.qdiscDrops() > 0) {
            settings.add(new Setting(
                    "host",
                    "tc qdisc " + (device.rootQdisc().isEmpty() ? "" : device.rootQdisc() + " ") + "on "
                            + device.name(),
                    "a larger limit, or a higher rate where it shapes"));
        }
        if (!device.allowanceExceeded().isEmpty()) {
            settings.add(new Setting(
                    "host",
                    "the instance's network allowance ("
                            + String.join(", ", device.allowanceExceeded().keySet()) + ")",
                    "a larger instance type, or less traffic through this instance"));
        }
        if (device.driverTxDropped() > 0) {
            settings.add(new Setting("host", "ethtool -G " + device.name() + " tx", "a larger transmit ring"));
        }
        String why = String.format(
                "this host dropped %d packets leaving %s in the last %.0f s (qdisc %d, driver %d, allowance %d)%s: the loss is"
                        + " local, not the path's, so a congestion control such as BBR would not help",
                drops,
                device.name(),
                signals.seconds(),
                device.qdiscDrops(),
                device.driverTxDropped(),
                drops - device.qdiscDrops() - device.driverTxDropped(),
                hurt.isEmpty() ? "" : ", while " + hurt.size() + " Kafka connections on it were sending");
        ConnectionIdentity named = hurt.isEmpty() ? host : hurt.get(0).identity();
        return Optional.of(new Finding(RuleId.HOST_EGRESS_DROPS, severity, named, evidence, new Remedy(settings, why)));
    }

    static Optional<Finding> txQueueSkew(HostSignals signals, HostSignals.Device device, ConnectionIdentity host) {
        List<Long> queues = device.txQueuePackets();
        if (queues.size() < 2) {
            return Optional.empty();
        }
        long total = 0;
        int busiest = 0;
        for (int queue = 0; queue < queues.size(); queue++) {
            total += queues.get(queue);
            if (queues.get(queue) > queues.get(busiest)) {
                busiest = queue;
            }
        }
        double share = total == 0 ? 0 : (double) queues.get(busiest) / total;
        if (total < SKEW_MIN_PACKETS || share < SKEW_SHARE) {
            return Optional.empty();
        }
        List<Evidence> evidence = List.of(
                new Evidence("device", device.name(), ""),
                new Evidence("txQueues", queues.size(), "queues"),
                new Evidence("busiestQueue", busiest, "queue"),
                new Evidence("busiestShare", share, "ratio of packets"),
                new Evidence("packets", total, "packets per interval"));
        return Optional.of(new Finding(
                RuleId.TX_QUEUE_SKEW,
                Severity.WARN,
                host,
                evidence,
                new Remedy(
                        List.of(new Setting(
                                "host",
                                "/sys/class/net/" + device.name() + "/queues/tx-*/xps_cpus",
                                "spread over the CPUs (XPS); check RPS and the driver")),
                        String.format(
                                "queue %d of %s carried %.0f%% of its %d packets: one queue's ring and one CPU's"
                                        + " softirq take all of the traffic, and its queue fills while the others idle",
                                busiest, device.name(), share * 100, total))));
    }

    static Optional<Finding> cpuThrottled(HostSignals signals, List<Sending> sending, ConnectionIdentity host) {
        Optional<HostSignals.Throttling> measured = signals.throttling();
        if (measured.isEmpty() || measured.get().throttledPeriods() == 0) {
            return Optional.empty();
        }
        HostSignals.Throttling throttling = measured.get();
        double share = (double) throttling.throttledPeriods() / Math.max(1, throttling.periods());
        Severity severity = share >= CRITICAL_THROTTLED_SHARE ? Severity.CRITICAL : Severity.WARN;
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("cgroup", throttling.cgroup(), ""));
        evidence.add(new Evidence("throttledPeriods", throttling.throttledPeriods(), "periods per interval"));
        evidence.add(new Evidence("periods", throttling.periods(), "periods per interval"));
        evidence.add(new Evidence("throttledShare", share, "ratio of periods"));
        evidence.add(new Evidence("throttledTime", throttling.throttledSeconds(), "s per interval"));
        throttling.limitCores().ifPresent(cores -> evidence.add(new Evidence("cpuLimit", cores, "cores")));
        List<Sending> hurt = new ArrayList<>();
        for (Sending connection : sending) {
            if (connection.hurt()) {
                hurt.add(connection);
            }
        }
        hurt.sort(Comparator.comparingLong(Sending::retransmitted).reversed());
        addHurt(evidence, hurt);
        return Optional.of(new Finding(
                RuleId.CPU_THROTTLED,
                severity,
                host,
                evidence,
                new Remedy(
                        List.of(new Setting(
                                "host",
                                "the cgroup's CPU limit (cpu.max or cpu.cfs_quota_us; resources.limits.cpu in Kubernetes)",
                                throttling
                                        .limitCores()
                                        .map(cores -> "above " + cores + " cores, or none for a broker")
                                        .orElse("higher, or none for a broker"))),
                        String.format(
                                "the kernel stopped this process in %d of %d CPU periods of the last %.0f s (%.2f s of"
                                        + " throttled time, summed over CPUs) because its cgroup had used its CPU quota:"
                                        + " requests wait, acknowledgements leave late, and the peers see it as RTT and"
                                        + " retransmissions that no network change fixes",
                                throttling.throttledPeriods(),
                                throttling.periods(),
                                signals.seconds(),
                                throttling.throttledSeconds()))));
    }

    /** How many connections were hurt and the first few client.ids, bounded. */
    private static void addHurt(List<Evidence> evidence, List<Sending> hurt) {
        evidence.add(new Evidence("connectionsHurt", hurt.size(), "connections"));
        List<String> names = new ArrayList<>();
        for (Sending connection : hurt) {
            if (names.size() == NAMED_CONNECTIONS) {
                break;
            }
            connection.identity().clientId().ifPresent(names::add);
        }
        if (!names.isEmpty()) {
            evidence.add(new Evidence("hurtClients", String.join(",", names), ""));
        }
    }
}
