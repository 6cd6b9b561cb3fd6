package io.tcpsight.internal.diagnose.listener;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ListenerFacts;
import java.util.Optional;

/** One rule for a broker's listening socket and its namespace's SYN and listen counters: a finding or none. */
public interface ListenerRule {
    Optional<Finding> judge(ListenerFacts facts, TcpsightConfig config);
}
