package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.flow;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.found;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.longPath;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.rtt;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.Rates;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ConnectionFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The no-window-scaling rule. */
final class NoWindowScaling implements ConnectionRule {
    static final ConnectionRule RULE = new NoWindowScaling();

    private NoWindowScaling() {}

    @Override
    public Optional<Finding> judge(ConnectionFacts facts, TcpsightConfig config) {
        if (!facts.established() || facts.windowScaling().orElse(true)) {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("windowScaling", "off", ""));
        evidence.add(new Evidence("windowMax", WindowModel.UNSCALED_WINDOW_MAX, "bytes"));
        facts.sndWindowBytes().ifPresent(bytes -> evidence.add(new Evidence("snd_wnd", bytes, "bytes")));
        BulkFlow flow = facts.identity().bulkFlow();
        evidence.add(flow(flow));
        Severity severity = flow == BulkFlow.NONE ? Severity.INFO : Severity.WARN;
        if (facts.rttMicros() > 0) {
            evidence.add(rtt(facts));
            double ceilingRate = Rates.ceilingBytesPerSecond(WindowModel.UNSCALED_WINDOW_MAX, facts.rttMicros());
            evidence.add(new Evidence("ceilingRate", Rates.mbit(ceilingRate), "Mbit/s"));
            if (flow != BulkFlow.NONE
                    && longPath(facts, config)
                    && WindowModel.judge(ceilingRate, config.targetBytesPerSecond())
                            .isPresent()) {
                severity = Severity.CRITICAL;
            }
        }
        List<Setting> settings = new ArrayList<>();
        settings.add(Setting.sysctl("net.ipv4.tcp_timestamps", 1));
        settings.add(new Setting("broker", "socket.listen.backlog.size", "1024"));
        settings.add(Setting.sysctl("net.core.somaxconn", 1024));
        settings.add(new Setting("tcpsight", "tcpsight.startup.max.clients.per.second", "20"));
        Optional<Finding> finding = found(
                RuleId.NO_WINDOW_SCALING,
                severity,
                facts.identity(),
                evidence,
                settings,
                "the connection was set up by a SYN cookie without TCP timestamps (a full listen queue on the broker, and the client or "
                        + "a middlebox drops timestamps), so window scaling was lost for the connection's life: keep timestamps on at the "
                        + "client and on the path, and give the broker a listen queue that does not overflow; reconnect to recover");
        if (flow == BulkFlow.NONE || facts.rttMicros() <= 0) {
            return finding;
        }
        // scaled again, the window is what the buffers allow, which their own rules judge
        Limit limit = new Limit(
                Limit.RECEIVE_WINDOW,
                Rates.ceilingBytesPerSecond(WindowModel.UNSCALED_WINDOW_MAX, facts.rttMicros()),
                Limit.UNBOUNDED);
        return finding.map(named -> named.withLimit(limit));
    }
}
