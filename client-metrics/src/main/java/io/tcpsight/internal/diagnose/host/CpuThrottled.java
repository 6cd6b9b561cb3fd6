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
import java.util.Optional;

/**
 * The cpu-throttled rule: the kernel stopped this process because its cgroup used its CPU quota;
 * judged once per interval for the whole host, naming the connections that were sending.
 */
final class CpuThrottled {
    static final CpuThrottled RULE = new CpuThrottled();

    /** A quarter of the periods throttled: the process waits for CPU about as often as it runs. */
    static final double CRITICAL_THROTTLED_SHARE = 0.25;

    private CpuThrottled() {}

    public Optional<Finding> judge(HostSignals signals, List<SendingConnection> sending, ConnectionIdentity host) {
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
        SendingConnection.addHurt(evidence, SendingConnection.hurtOf(sending, connection -> true));
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
}
