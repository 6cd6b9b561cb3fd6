package io.tcpsight.internal.diagnose.listener;

import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ListenerFacts;
import java.util.ArrayList;
import java.util.List;

/**
 * What the listener rules share about a listen queue: its evidence, whether it overflowed, and
 * the backlog that absorbs a burst. A listener is named only for what is its own: its queue, and
 * its own drops where the kernel counts them; what only the namespace's counters show is a finding
 * without a listener name.
 */
final class ListenQueue {
    private ListenQueue() {}

    /** A backlog that absorbs a burst: four times the current one, at least 1024. */
    static long recommendedBacklog(ListenerFacts facts) {
        long current = facts.configuredBacklog().isPresent()
                ? facts.configuredBacklog().getAsInt()
                : facts.effectiveBacklog();
        return Math.max(1024, 4 * current);
    }

    static List<Setting> backlogSettings(ListenerFacts facts) {
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

    static void queueEvidence(List<Evidence> evidence, ListenerFacts facts) {
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
    static boolean overflowed(ListenerFacts facts) {
        if (facts.isOneListener()) {
            return facts.countsOwnDrops() && facts.ownDrops().orElse(0) > 0;
        }
        return facts.listenOverflows().orElse(0) > 0 || facts.listenDrops().orElse(0) > 0;
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
}
