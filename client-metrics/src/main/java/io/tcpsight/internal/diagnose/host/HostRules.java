package io.tcpsight.internal.diagnose.host;

import java.util.List;

/**
 * The rules about this host's TCP sysctls, each a type of its own behind {@link HostRule}, in the
 * order a round runs them. Pure functions. The host's interval signals (drops, queues, CPU
 * throttling) are judged apart, by {@link HostSignalRules}: they read an interval's counters and
 * the connections that sent in it, not the sysctls.
 */
public final class HostRules {
    private HostRules() {}

    /** Every host rule, in the order a round runs them. */
    public static final List<HostRule> ALL = List.of(WindowScalingDisabled.RULE, TimestampsDisabled.RULE);
}
