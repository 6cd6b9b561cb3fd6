package io.tcpsight.internal.diagnose;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KernelFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Rules about this host's TCP sysctls, judged for the path to a cluster: the identity names the
 * path (the slowest broker), the RTT is what was measured on it. Pure functions.
 */
public final class HostRules {
    private HostRules() {}

    public static Optional<Finding> windowScalingDisabled(
            KernelFacts kernel, ConnectionIdentity path, long rttMicros, TcpsightConfig config) {
        if (kernel.windowScaling().orElse(1) != 0) {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("net.ipv4.tcp_window_scaling", 0, ""));
        evidence.add(new Evidence("windowMax", WindowModel.UNSCALED_WINDOW_MAX, "bytes"));
        Severity severity = Severity.WARN;
        double ceilingRate = -1;
        if (rttMicros > 0) {
            ceilingRate = WindowModel.ceilingBytesPerSecond(WindowModel.UNSCALED_WINDOW_MAX, rttMicros);
            evidence.add(WindowModel.rtt(rttMicros));
            evidence.add(new Evidence("ceilingRate", WindowModel.mbit(ceilingRate), "Mbit/s"));
            if (WindowModel.judge(ceilingRate, config.targetBytesPerSecond()).isPresent()) {
                severity = Severity.CRITICAL;
            }
        }
        Finding finding = new Finding(
                RuleId.WINDOW_SCALING_DISABLED,
                severity,
                path,
                evidence,
                new Remedy(
                        List.of(Setting.sysctl("net.ipv4.tcp_window_scaling", 1)),
                        "with window scaling off this host never advertises or uses more than 64 KiB of window, whatever the buffers"));
        // scaled, the window is what the buffers allow, which their own rules judge
        return Optional.of(
                ceilingRate < 0
                        ? finding
                        : finding.withLimit(new Limit(Limit.RECEIVE_WINDOW, ceilingRate, Limit.UNBOUNDED)));
    }

    public static Optional<Finding> timestampsDisabled(
            KernelFacts kernel, ConnectionIdentity path, TcpsightConfig config) {
        if (kernel.timestamps().orElse(1) != 0) {
            return Optional.empty();
        }
        List<Evidence> evidence = List.of(new Evidence("net.ipv4.tcp_timestamps", 0, ""));
        return Optional.of(
                new Finding(
                        RuleId.TIMESTAMPS_DISABLED,
                        Severity.WARN,
                        path,
                        evidence,
                        new Remedy(
                                List.of(Setting.sysctl("net.ipv4.tcp_timestamps", 1)),
                                "a SYN cookie keeps the window scale only inside the TCP timestamp: whenever a broker's listen queue overflows, "
                                        + "this host's connections come up without window scaling and stay at 64 KiB for their life")));
    }
}
