package io.tcpsight.internal.diagnose;

import static io.tcpsight.internal.config.TcpsightConfig.RULE_ACCEPT_QUEUE_RATIO;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.model.ListenerFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Rules for a broker's listening sockets and its namespace's SYN and listen counters. Pure
 * functions. A listener is named only for what is its own: its queue, and its own drops where
 * the kernel counts them; what only the namespace's counters show is a finding without a
 * listener name.
 */
public final class ListenerRules {
    private ListenerRules() {}

    /** A backlog that absorbs a burst: four times the current one, at least 1024. */
    static long recommendedBacklog(ListenerFacts facts) {
        long current = facts.configuredBacklog().isPresent()
                ? facts.configuredBacklog().getAsInt()
                : facts.effectiveBacklog();
        return Math.max(1024, 4 * current);
    }

    private static List<Setting> backlogSettings(ListenerFacts facts) {
        long backlog = recommendedBacklog(facts);
        List<Setting> settings = new ArrayList<>();
        settings.add(new Setting("broker", "socket.listen.backlog.size", Long.toString(backlog)));
        // the same without a restart: the broker agent's opt-in, on the running listeners
        settings.add(new Setting("tcpsight", "tcpsight.listen.backlog", Long.toString(backlog)));
        if (facts.somaxconn().orElse(0) < backlog) {
            settings.add(Setting.sysctl("net.core.somaxconn", backlog));
        }
        settings.add(new Setting("tcpsight", "tcpsight.startup.max.clients.per.second", "20"));
        return settings;
    }

    private static void queueEvidence(List<Evidence> evidence, ListenerFacts facts) {
        if (facts.isOneListener()) {
            evidence.add(new Evidence("acceptQueue", facts.acceptQueueLength(), "connections"));
        }
        evidence.add(new Evidence("effectiveBacklog", facts.effectiveBacklog(), "connections"));
        facts.configuredBacklog()
                .ifPresent(backlog -> evidence.add(new Evidence("socket.listen.backlog.size", backlog, "connections")));
        facts.somaxconn()
                .ifPresent(somaxconn -> evidence.add(new Evidence("net.core.somaxconn", somaxconn, "connections")));
    }

    /**
     * Connects were dropped: a listener by its own count alone (the namespace's counters cannot
     * tell listeners apart), the namespace by its counters.
     */
    private static boolean overflowed(ListenerFacts facts) {
        if (facts.isOneListener()) {
            return facts.countsOwnDrops() && facts.ownDrops().orElse(0) > 0;
        }
        return facts.listenOverflows().orElse(0) > 0 || facts.listenDrops().orElse(0) > 0;
    }

    public static Optional<Finding> listenBacklogOverflow(ListenerFacts facts, TcpsightConfig config) {
        boolean overflowed = overflowed(facts);
        boolean nearlyFull = facts.isOneListener()
                && facts.effectiveBacklog() > 0
                && (double) facts.acceptQueueLength() / facts.effectiveBacklog() >= config.get(RULE_ACCEPT_QUEUE_RATIO);
        if (!overflowed && !nearlyFull) {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        queueEvidence(evidence, facts);
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
                        backlogSettings(facts),
                        backlogArithmetic(facts)
                                + "; when the accept queue is full the kernel drops SYNs and handshake ACKs, and clients "
                                + "wait a second or more for retransmissions; raise the backlog and somaxconn together (the smaller "
                                + "one wins) to " + recommendedBacklog(facts) + ", and pace client startup bursts")));
    }

    /** "the accept queue holds min(socket.listen.backlog.size 50, net.core.somaxconn 4096) = 50 connections". */
    static String backlogArithmetic(ListenerFacts facts) {
        String configured = facts.configuredBacklog().isPresent()
                ? Integer.toString(facts.configuredBacklog().getAsInt())
                : "?";
        String somaxconn =
                facts.somaxconn().isPresent() ? Long.toString(facts.somaxconn().getAsLong()) : "?";
        return "the accept queue holds min(socket.listen.backlog.size " + configured + ", net.core.somaxconn "
                + somaxconn + ") = " + facts.effectiveBacklog() + " connections";
    }

    /**
     * The namespace sent SYN cookies. The counter is the namespace's: a listener is named only when
     * its own queue overflowed in the same window (its own drops), else the finding names none.
     */
    public static Optional<Finding> synCookies(ListenerFacts facts, TcpsightConfig config) {
        if (facts.syncookiesSent().orElse(0) <= 0 || (facts.isOneListener() && !overflowed(facts))) {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("SyncookiesSent", facts.syncookiesSent().getAsLong(), "in the last 5 min"));
        queueEvidence(evidence, facts);
        facts.ownDrops().ifPresent(rise -> evidence.add(new Evidence("listenerDrops", rise, "in the last 5 min")));
        List<Setting> settings = backlogSettings(facts);
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
