package io.tcpsight.internal.diagnose.host;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KernelFacts;
import java.util.Optional;

/**
 * One rule about this host's TCP sysctls, judged for the path to a cluster: the identity names the
 * path (the slowest broker), the RTT is what was measured on it (0 when none was).
 */
public interface HostRule {
    Optional<Finding> judge(KernelFacts kernel, ConnectionIdentity path, long rttMicros, TcpsightConfig config);
}
