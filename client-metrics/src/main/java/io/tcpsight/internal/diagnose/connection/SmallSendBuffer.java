package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.autotunedAfter;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.flow;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.found;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.longPath;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.wmemFor;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.keys.KafkaKeys;
import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ConnectionFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * This end sends bulk data (a producer's client end, a broker's end of a fetch) through a send
 * buffer fixed by configuration: unacknowledged data for a whole round trip must fit in it.
 */
final class SmallSendBuffer implements ConnectionRule {
    static final ConnectionRule RULE = new SmallSendBuffer();

    private SmallSendBuffer() {}

    @Override
    public Optional<Finding> judge(ConnectionFacts facts, TcpsightConfig config) {
        int configured = facts.kafka().sendBufferBytes().orElse(-1);
        BulkFlow flow = facts.identity().bulkFlow();
        if (configured <= 0
                || !facts.established()
                || !longPath(facts, config)
                || !flow.leaves(facts.identity().role())) {
            return Optional.empty();
        }
        Optional<WindowModel.Verdict> verdict = WindowModel.judge(
                configured, new Evidence("configuredSendBuffer", configured, "bytes"), facts.rttMicros(), config);
        if (!verdict.isPresent()) {
            return Optional.empty();
        }
        List<Evidence> evidence = verdict.get().evidence;
        evidence.add(flow(flow));
        List<Setting> settings = new ArrayList<>(KafkaKeys.ownSendBuffer(facts.identity(), Setting.AUTOTUNE));
        Optional<Setting> wmem = wmemFor(facts, config);
        wmem.ifPresent(settings::add);
        Limit limit = new Limit(
                Limit.SEND_BUFFER,
                verdict.get().ceilingBytesPerSecond,
                autotunedAfter(wmem, facts.kernel().tcpWmemMax(), facts, config));
        return found(
                        RuleId.SMALL_SEND_BUFFER,
                        verdict.get().severity,
                        facts.identity(),
                        evidence,
                        settings,
                        String.format(
                                "this end sends %s through a send buffer of %d bytes, which holds at most that much unacknowledged "
                                        + "data: %.1f Mbit/s over %.1f ms; autotuning lets the kernel grow it to the bandwidth-delay "
                                        + "product",
                                flow.description(), configured, verdict.get().ceilingMbit(), facts.rttMillis()))
                .map(finding -> finding.withLimit(limit));
    }
}
