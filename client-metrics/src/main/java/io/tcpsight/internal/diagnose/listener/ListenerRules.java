package io.tcpsight.internal.diagnose.listener;

import java.util.List;

/**
 * The listener rules, each a type of its own behind {@link ListenerRule}, in the order a round
 * runs them. Pure functions.
 */
public final class ListenerRules {
    private ListenerRules() {}

    /** Every listener rule, in the order a round runs them. */
    public static final List<ListenerRule> ALL = List.of(ListenBacklogOverflow.RULE, SynCookiesSent.RULE);
}
