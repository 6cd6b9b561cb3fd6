package io.tcpsight.internal.diagnose.host;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.connection.WindowModel;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.Rates;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KernelFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The window-scaling-disabled rule: this host never advertises more than 64 KiB of window. */
final class WindowScalingDisabled implements HostRule {
    static final HostRule RULE = new WindowScalingDisabled();

    private WindowScalingDisabled() {}

    @Override
    public Optional<Finding> judge(KernelFacts kernel, ConnectionIdentity path, long rttMicros, TcpsightConfig config) {
        if (kernel.windowScaling().orElse(1) != 0) {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("net.ipv4.tcp_window_scaling", 0, ""));
        evidence.add(new Evidence("windowMax", WindowModel.UNSCALED_WINDOW_MAX, "bytes"));
        Severity severity = Severity.WARN;
        double ceilingRate = -1;
        if (rttMicros > 0) {
            ceilingRate = Rates.ceilingBytesPerSecond(WindowModel.UNSCALED_WINDOW_MAX, rttMicros);
            evidence.add(Evidence.rtt(rttMicros));
            evidence.add(new Evidence("ceilingRate", Rates.mbit(ceilingRate), "Mbit/s"));
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
}
