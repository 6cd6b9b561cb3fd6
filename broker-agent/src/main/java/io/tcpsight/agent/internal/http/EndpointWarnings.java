package io.tcpsight.agent.internal.http;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/** One line per kind of problem, and at most 16 kinds: a hostile client cannot flood the broker's log. */
final class EndpointWarnings {
    private static final int MAX_KINDS = 16;
    private final Consumer<String> warn;
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    EndpointWarnings(Consumer<String> warn) {
        this.warn = warn;
    }

    void once(String kind, String line) {
        if (logged.size() < MAX_KINDS && logged.add(kind)) {
            warn.accept(line);
        }
    }
}
