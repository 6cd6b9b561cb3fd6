package io.tcpsight.internal.diagnose.host;

import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.HostSignals;
import java.util.ArrayList;
import java.util.List;

/**
 * Is it this host or the path? Findings from the host's own counters over the last interval,
 * each tied to the Kafka connections that retransmitted in the same interval. Pure functions of
 * the rises ({@link HostSignals}) and those connections: the device rules for each device, in
 * the order of {@link #DEVICE_RULES}, then {@link CpuThrottled} and {@link HostCpuBusy} for the
 * whole host.
 */
public final class HostSignalRules {
    /** Every rule judged for each device, in the order a round runs them. */
    static final List<DeviceSignalRule> DEVICE_RULES = List.of(HostEgressDrops.RULE, TxQueueSkew.RULE);

    private HostSignalRules() {}

    /** The least a connection that is not busy sending must move to count as a flow for host-cpu-busy. */
    public static double flowOfSubstance(double targetBytesPerSecond) {
        return HostCpuBusy.SUBSTANTIAL * targetBytesPerSecond;
    }

    /**
     * @param sending the named connections that sent in the interval (retransmitted, or busy)
     * @param host the identity a finding carries when no Kafka connection was hurt (this JVM's role)
     * @param targetBytesPerSecond the rate a busy flow should reach (tcpsight.target.throughput.mbit)
     */
    public static List<Finding> evaluate(
            HostSignals signals,
            List<SendingConnection> sending,
            ConnectionIdentity host,
            double targetBytesPerSecond) {
        List<Finding> findings = new ArrayList<>();
        for (HostSignals.Device device : signals.devices()) {
            for (DeviceSignalRule rule : DEVICE_RULES) {
                rule.judge(signals, device, sending, host).ifPresent(findings::add);
            }
        }
        CpuThrottled.RULE.judge(signals, sending, host).ifPresent(findings::add);
        HostCpuBusy.RULE.judge(signals, sending, host, targetBytesPerSecond).ifPresent(findings::add);
        return findings;
    }
}
