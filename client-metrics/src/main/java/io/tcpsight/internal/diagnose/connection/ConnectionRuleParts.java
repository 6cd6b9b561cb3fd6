package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.config.TcpsightConfig.RULE_MIN_BUSY_RATIO;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.tuning.BdpSettings;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/** What the connection rules share: the path's length, the RTT and flow as evidence, the kernel buffer remedies, and the finding itself. */
public final class ConnectionRuleParts {
    private ConnectionRuleParts() {}

    /** A finding with its remedy: what every rule returns when it speaks. */
    static Optional<Finding> found(
            RuleId rule,
            Severity severity,
            ConnectionIdentity connection,
            List<Evidence> evidence,
            List<Setting> settings,
            String why) {
        return Optional.of(new Finding(rule, severity, connection, evidence, new Remedy(settings, why)));
    }

    static boolean longPath(ConnectionFacts facts, TcpsightConfig config) {
        return longPath(facts.rttMicros(), config);
    }

    /** Long enough for window and fetch-size rules to speak (tcpsight.rule.min.rtt.ms). */
    public static boolean longPath(long rttMicros, TcpsightConfig config) {
        return rttMicros > 0 && rttMicros >= config.ruleMinRttMicros();
    }

    static Evidence rtt(ConnectionFacts facts) {
        return Evidence.rtt(facts.rttMicros());
    }

    /** Linux's min and default of net.ipv4.tcp_rmem, kept when a remedy raises its max. */
    static final String RMEM_MIN_AND_DEFAULT = "4096 131072 ";

    /** net.ipv4.tcp_rmem with a max of at least twice the BDP at the target rate, or nothing when it already is. */
    static Optional<Setting> rmemFor(ConnectionFacts facts, TcpsightConfig config) {
        return kernelBufferFor(
                "net.ipv4.tcp_rmem", RMEM_MIN_AND_DEFAULT, facts.kernel().tcpRmemMax(), facts, config);
    }

    /** net.ipv4.tcp_wmem likewise. */
    static Optional<Setting> wmemFor(ConnectionFacts facts, TcpsightConfig config) {
        return kernelBufferFor(
                "net.ipv4.tcp_wmem", "4096 16384 ", facts.kernel().tcpWmemMax(), facts, config);
    }

    /** The sysctl (min and default kept at Linux's) with a max of twice the BDP, unless the max already is. */
    static Optional<Setting> kernelBufferFor(
            String sysctl, String minAndDefault, OptionalLong max, ConnectionFacts facts, TcpsightConfig config) {
        long needed = BdpSettings.kernelBufferMax(facts.rttMicros(), config.targetBytesPerSecond());
        if (max.orElse(0) >= needed) {
            return Optional.empty();
        }
        return Optional.of(Setting.sysctl(sysctl, minAndDefault + needed));
    }

    /**
     * A window's or send buffer's ceiling once a remedy lets it autotune: up to the host max the
     * remedy names ({@code namedMax}, twice the BDP at the target), else the one in effect, else
     * nothing this end knows.
     */
    static double autotunedAfter(
            Optional<Setting> namedMax, OptionalLong currentMax, ConnectionFacts facts, TcpsightConfig config) {
        if (namedMax.isPresent()) {
            return Limit.autotunedWindowRate(
                    BdpSettings.kernelBufferMax(facts.rttMicros(), config.targetBytesPerSecond()), facts.rttMicros());
        }
        return currentMax.isPresent()
                ? Limit.autotunedWindowRate(currentMax.getAsLong(), facts.rttMicros())
                : Limit.UNBOUNDED;
    }

    static Evidence flow(BulkFlow flow) {
        return new Evidence("flow", flow.description(), "");
    }

    /** The why of a buffer finding on a connection whose bulk data does not pass that buffer: info only. */
    static String doesNotBind(String why, BulkFlow flow, String passes) {
        return why + "; but this connection carries " + flow.description() + ", so no bulk data " + passes
                + " this end and the limit costs nothing now";
    }

    static boolean busyEnough(ConnectionFacts facts, TcpsightConfig config) {
        return facts.interval()
                .map(interval -> interval.busyRatio() >= config.get(RULE_MIN_BUSY_RATIO))
                .orElse(false);
    }
}
