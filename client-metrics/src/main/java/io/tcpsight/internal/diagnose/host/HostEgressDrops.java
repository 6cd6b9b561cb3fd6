package io.tcpsight.internal.diagnose.host;

import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.HostSignals;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The host-egress-drops rule: a device of this host dropped packets on the way out, named on the
 * Kafka connections on it that were sending then (the loss is local, not the path's).
 */
final class HostEgressDrops implements DeviceSignalRule {
    static final DeviceSignalRule RULE = new HostEgressDrops();

    /** One percent of a device's packets dropped on the way out. */
    static final double CRITICAL_DROP_RATIO = 0.01;

    private HostEgressDrops() {}

    @Override
    public Optional<Finding> judge(
            HostSignals signals, HostSignals.Device device, List<SendingConnection> sending, ConnectionIdentity host) {
        long drops = device.egressDrops();
        if (drops == 0) {
            return Optional.empty();
        }
        List<SendingConnection> hurt = SendingConnection.hurtOf(
                sending,
                connection -> connection.local() != null && device.addresses().contains(connection.local()));
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
        SendingConnection.addHurt(evidence, hurt);
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
}
