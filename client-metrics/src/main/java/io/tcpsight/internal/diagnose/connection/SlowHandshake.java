package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.config.TcpsightConfig.RULE_SLOW_HANDSHAKE_MS;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.found;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.rtt;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The slow-handshake rule. */
public final class SlowHandshake implements ConnectionRule {
    public static final ConnectionRule RULE = new SlowHandshake();

    private SlowHandshake() {}

    @Override
    public Optional<Finding> judge(ConnectionFacts facts, TcpsightConfig config) {
        long threshold = config.get(RULE_SLOW_HANDSHAKE_MS);
        long handshakeMillis = facts.handshakeMillis().orElse(0);
        if (handshakeMillis < threshold) {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("handshake", handshakeMillis, "ms"));
        if (facts.rttMicros() > 0) {
            evidence.add(rtt(facts));
        }
        Severity severity = handshakeMillis >= 3 * threshold ? Severity.CRITICAL : Severity.WARN;
        List<Setting> settings = List.of(
                new Setting("broker", "socket.listen.backlog.size", "1024"),
                Setting.sysctl("net.core.somaxconn", 1024),
                new Setting("tcpsight", "tcpsight.startup.max.clients.per.second", "20"));
        return found(
                RuleId.SLOW_HANDSHAKE,
                severity,
                facts.identity(),
                evidence,
                settings,
                "a connect that takes tcpsight.rule.slow.handshake.ms (1 s) or more waited for SYN retransmissions (the first 1 s "
                        + "after the SYN, the next 1 s or 2 s later by kernel): the broker's listen queue "
                        + "(min of socket.listen.backlog.size and net.core.somaxconn) overflowed and dropped the SYN");
    }
}
