package io.tcpsight.internal.diagnose.listener;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ListenerFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The syn-cookies rule: the namespace sent SYN cookies. The counter is the namespace's: a listener
 * is named only when its own queue overflowed in the same window (its own drops), else the finding
 * names none.
 */
final class SynCookiesSent implements ListenerRule {
    static final ListenerRule RULE = new SynCookiesSent();

    private SynCookiesSent() {}

    @Override
    public Optional<Finding> judge(ListenerFacts facts, TcpsightConfig config) {
        if (facts.syncookiesSent().orElse(0) <= 0 || (facts.isOneListener() && !ListenQueue.overflowed(facts))) {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("SyncookiesSent", facts.syncookiesSent().getAsLong(), "in the last 5 min"));
        ListenQueue.queueEvidence(evidence, facts);
        facts.ownDrops().ifPresent(rise -> evidence.add(new Evidence("listenerDrops", rise, "in the last 5 min")));
        List<Setting> settings = ListenQueue.backlogSettings(facts);
        settings.add(Setting.sysctl("net.ipv4.tcp_timestamps", 1));
        Severity severity = facts.hostTimestamps().orElse(1) == 0 ? Severity.CRITICAL : Severity.WARN;
        return Optional.of(
                new Finding(
                        RuleId.SYN_COOKIES,
                        severity,
                        facts.identity(),
                        evidence,
                        new Remedy(
                                settings,
                                "the listen queue overflowed and the kernel answered with SYN cookies; a cookie keeps window scaling only inside the "
                                        + "TCP timestamp, so clients without timestamps are stuck at a 64 KiB window for the connection's life")));
    }
}
