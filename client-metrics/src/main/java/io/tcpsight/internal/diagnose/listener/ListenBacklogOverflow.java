package io.tcpsight.internal.diagnose.listener;

import static io.tcpsight.internal.config.TcpsightConfig.RULE_ACCEPT_QUEUE_RATIO;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ListenerFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The listen-backlog-overflow rule: connects were dropped, or the accept queue is nearly full. A
 * listener by its own count alone (the namespace's counters cannot tell listeners apart), the
 * namespace by its counters.
 */
final class ListenBacklogOverflow implements ListenerRule {
    static final ListenerRule RULE = new ListenBacklogOverflow();

    private ListenBacklogOverflow() {}

    @Override
    public Optional<Finding> judge(ListenerFacts facts, TcpsightConfig config) {
        boolean overflowed = ListenQueue.overflowed(facts);
        boolean nearlyFull = facts.isOneListener()
                && facts.effectiveBacklog() > 0
                && (double) facts.acceptQueueLength() / facts.effectiveBacklog() >= config.get(RULE_ACCEPT_QUEUE_RATIO);
        if (!overflowed && !nearlyFull) {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        ListenQueue.queueEvidence(evidence, facts);
        facts.ownDrops().ifPresent(rise -> evidence.add(new Evidence("listenerDrops", rise, "in the last 5 min")));
        facts.listenOverflows()
                .ifPresent(rise -> evidence.add(new Evidence("ListenOverflows", rise, "in the last 5 min")));
        facts.listenDrops().ifPresent(rise -> evidence.add(new Evidence("ListenDrops", rise, "in the last 5 min")));
        return Optional.of(new Finding(
                RuleId.LISTEN_BACKLOG_OVERFLOW,
                overflowed ? Severity.CRITICAL : Severity.WARN,
                facts.identity(),
                evidence,
                new Remedy(
                        ListenQueue.backlogSettings(facts),
                        ListenQueue.backlogArithmetic(facts)
                                + "; when the accept queue is full the kernel drops SYNs and handshake ACKs, and clients "
                                + "wait a second or more for retransmissions; raise the backlog and somaxconn together (the smaller "
                                + "one wins) to " + ListenQueue.recommendedBacklog(facts)
                                + ", and pace client startup bursts")));
    }
}
