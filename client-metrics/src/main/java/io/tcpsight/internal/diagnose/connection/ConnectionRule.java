package io.tcpsight.internal.diagnose.connection;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ConnectionFacts;
import java.util.Optional;

/** One per-connection rule: a pure judgement of one connection's facts, a finding or none. */
public interface ConnectionRule {
    Optional<Finding> judge(ConnectionFacts facts, TcpsightConfig config);
}
