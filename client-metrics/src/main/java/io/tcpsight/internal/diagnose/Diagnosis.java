package io.tcpsight.internal.diagnose;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.connection.ConnectionRule;
import io.tcpsight.internal.diagnose.connection.ConnectionRules;
import io.tcpsight.internal.diagnose.connection.ExpectedRate;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.host.HostRule;
import io.tcpsight.internal.diagnose.host.HostRules;
import io.tcpsight.internal.diagnose.listener.ListenerRule;
import io.tcpsight.internal.diagnose.listener.ListenerRules;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.ListenerFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Runs every rule over facts, and says on each finding that names a limit what the flow reaches once every remedy is applied. */
public final class Diagnosis {
    private Diagnosis() {}

    public static List<Finding> connection(ConnectionFacts facts, TcpsightConfig config) {
        List<Finding> findings = new ArrayList<>();
        for (ConnectionRule rule : ConnectionRules.ALL) {
            add(findings, rule.judge(facts, config));
        }
        // one restart applies every remedy of the round: each limit says what the flow reaches after all of them
        return ExpectedRate.annotate(facts, findings, config);
    }

    public static List<Finding> listener(ListenerFacts facts, TcpsightConfig config) {
        List<Finding> findings = new ArrayList<>();
        for (ListenerRule rule : ListenerRules.ALL) {
            add(findings, rule.judge(facts, config));
        }
        return findings;
    }

    /** The host rules for the path to a cluster (identity of the slowest broker, its RTT). */
    public static List<Finding> host(
            KernelFacts kernel, ConnectionIdentity path, long rttMicros, TcpsightConfig config) {
        List<Finding> findings = new ArrayList<>();
        for (HostRule rule : HostRules.ALL) {
            add(findings, rule.judge(kernel, path, rttMicros, config));
        }
        return findings;
    }

    private static void add(List<Finding> findings, Optional<Finding> finding) {
        finding.ifPresent(findings::add);
    }
}
