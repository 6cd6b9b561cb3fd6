package io.tcpsight.agent;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Logs each kind of failure once, and at most a bounded number of kinds, so a hook failing per request cannot flood the log. */
final class OncePerKindLog {
    private static final int MAX_KINDS = 100;
    private final AgentLog log;
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    OncePerKindLog(AgentLog log) {
        this.log = log;
    }

    void failed(String where, Throwable failure) {
        String key = where + ": " + failure.getClass().getName();
        if (reported.size() < MAX_KINDS && reported.add(key)) {
            log.warn("tcpsight agent: " + where + " failed, Kafka is unaffected (reported once): " + failure);
        }
    }
}
