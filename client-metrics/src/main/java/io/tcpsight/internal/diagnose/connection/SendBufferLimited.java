package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.config.TcpsightConfig.RULE_WINDOW_LIMITED_RATIO;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.autotunedAfter;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.busyEnough;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.found;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.rtt;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.wmemFor;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.Rates;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.diagnose.keys.KafkaKeys;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.IntervalStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The send-buffer-limited rule. */
final class SendBufferLimited implements ConnectionRule {
    static final ConnectionRule RULE = new SendBufferLimited();

    private SendBufferLimited() {}

    @Override
    public Optional<Finding> judge(ConnectionFacts facts, TcpsightConfig config) {
        double threshold = config.get(RULE_WINDOW_LIMITED_RATIO);
        if (!busyEnough(facts, config) || facts.interval().get().sndbufLimitedRatio() < threshold) {
            return Optional.empty();
        }
        IntervalStats interval = facts.interval().get();
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("sndbufLimited", interval.sndbufLimitedRatio(), "ratio of busy time"));
        evidence.add(new Evidence("busy", interval.busyRatio(), "ratio of interval"));
        if (facts.rttMicros() > 0) {
            evidence.add(rtt(facts));
        }
        evidence.add(new Evidence("sendRate", Rates.mbit(interval.sendRateBytesPerSecond()), "Mbit/s"));
        List<Setting> settings = new ArrayList<>(KafkaKeys.ownSendBuffer(facts.identity(), Setting.AUTOTUNE));
        Optional<Setting> wmem = wmemFor(facts, config);
        wmem.ifPresent(settings::add);
        // the flow shows the buffer holding it: what it moved is what the buffer allows now
        Limit limit = new Limit(
                Limit.SEND_BUFFER,
                interval.sendRateBytesPerSecond(),
                autotunedAfter(wmem, facts.kernel().tcpWmemMax(), facts, config));
        return found(
                        RuleId.SEND_BUFFER_LIMITED,
                        Severity.WARN,
                        facts.identity(),
                        evidence,
                        settings,
                        String.format(
                                "%.0f%% of busy time this end could not send because its own send buffer was full; unacknowledged "
                                        + "data for a whole round trip must fit in it",
                                interval.sndbufLimitedRatio() * 100))
                .map(finding -> finding.withLimit(limit));
    }
}
