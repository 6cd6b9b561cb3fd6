package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.flow;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.found;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.Rates;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.diagnose.keys.KafkaKeys;
import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.KernelVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** The kernel-window-clamp-regression rule. */
public final class KernelWindowClampRegression implements ConnectionRule {
    public static final ConnectionRule RULE = new KernelWindowClampRegression();

    private KernelWindowClampRegression() {}

    /**
     * Linux 6.6 (dfa2f0483360) kept window_clamp at an initial scaling ratio of about 25% when an
     * application set SO_RCVBUF; fixed by 697a6c8cec03 (6.10, 6.6.33) and 05f76b2d634e (6.11,
     * about 6.6.45). The point releases are approximate.
     */
    public static boolean inClampRegressionRange(KernelVersion kernel) {
        if (kernel.major() != 6) {
            return false;
        }
        return (kernel.minor() == 6 && kernel.patch() < 45) || (kernel.minor() >= 7 && kernel.minor() <= 10);
    }

    @Override
    public Optional<Finding> judge(ConnectionFacts facts, TcpsightConfig config) {
        Optional<KernelVersion> version = facts.kernel().version();
        if (version.isEmpty() || !WindowModel.fixedReceiveBuffer(facts) || !inClampRegressionRange(version.get())) {
            return Optional.empty();
        }
        KernelVersion kernel = version.get();
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("kernel", kernel.release(), ""));
        evidence.add(new Evidence(
                "configuredReceiveBuffer", facts.kafka().receiveBufferBytes().getAsInt(), "bytes"));
        OptionalInt clamp = facts.windowClampBytes();
        OptionalInt buffer = facts.receiveBufferBytes();
        if (clamp.isPresent() && buffer.isPresent() && buffer.getAsInt() > 0) {
            evidence.add(new Evidence("TCP_WINDOW_CLAMP", clamp.getAsInt(), "bytes"));
            evidence.add(new Evidence("clampShareOfBuffer", (double) clamp.getAsInt() / buffer.getAsInt(), "ratio"));
        }
        BulkFlow flow = facts.identity().bulkFlow();
        evidence.add(flow(flow));
        List<Setting> settings = new ArrayList<>(KafkaKeys.ownReceiveBuffer(facts.identity(), Setting.AUTOTUNE));
        settings.add(new Setting("kernel", "version", ">= 6.6.45 on 6.6, or >= 6.11"));
        boolean binds = flow.arrivesAt(facts.identity().role());
        Optional<Finding> finding = found(
                RuleId.KERNEL_WINDOW_CLAMP_REGRESSION,
                binds ? Severity.WARN : Severity.INFO,
                facts.identity(),
                evidence,
                settings,
                "kernels from about 6.6.0 to 6.6.44 and 6.7 to 6.10 (approximate) clamp the window of a socket with an explicit SO_RCVBUF "
                        + "to about a quarter of the buffer instead of half; autotuning is not affected");
        if (!binds || clamp.isEmpty() || facts.rttMicros() <= 0) {
            return finding;
        }
        // autotuned, the window grows up to half the host's tcp_rmem max; this remedy names no sysctl
        Limit limit = new Limit(
                Limit.RECEIVE_WINDOW,
                Rates.ceilingBytesPerSecond(clamp.getAsInt(), facts.rttMicros()),
                ConnectionRuleParts.autotunedAfter(
                        Optional.empty(), facts.kernel().tcpRmemMax(), facts, config));
        return finding.map(named -> named.withLimit(limit));
    }
}
