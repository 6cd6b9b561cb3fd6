package io.tcpsight.internal.diagnose.host;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KernelFacts;
import java.util.List;
import java.util.Optional;

/** The timestamps-disabled rule: a SYN cookie cannot keep this host's window scale. */
final class TimestampsDisabled implements HostRule {
    static final HostRule RULE = new TimestampsDisabled();

    private TimestampsDisabled() {}

    @Override
    public Optional<Finding> judge(KernelFacts kernel, ConnectionIdentity path, long rttMicros, TcpsightConfig config) {
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
