package io.tcpsight.internal.diagnose.host;

import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.HostSignals;
import java.util.List;
import java.util.Optional;

/** The tx-queue-skew rule: one transmit queue of a device carries nearly all of its packets. */
final class TxQueueSkew implements DeviceSignalRule {
    static final DeviceSignalRule RULE = new TxQueueSkew();

    /** A transmit queue with this share of a device's packets carries nearly everything. */
    static final double SKEW_SHARE = 0.9;
    /** Fewer packets in an interval say nothing about how the queues are used. */
    static final long SKEW_MIN_PACKETS = 1000;

    private TxQueueSkew() {}

    @Override
    public Optional<Finding> judge(
            HostSignals signals, HostSignals.Device device, List<SendingConnection> sending, ConnectionIdentity host) {
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
}
