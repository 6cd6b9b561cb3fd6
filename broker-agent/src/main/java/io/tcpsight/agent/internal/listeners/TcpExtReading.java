package io.tcpsight.agent.internal.listeners;

import io.tcpsight.internal.host.NetstatCounters;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The namespace's TcpExt counters the listener watch reads, at one moment. A counter this kernel
 * does not have is empty.
 */
final class TcpExtReading {
    /** Before the first round: every counter unknown. */
    static final TcpExtReading NONE = new TcpExtReading(0, Map.of());

    final long nanoTime;
    private final Map<String, Long> values;

    private TcpExtReading(long nanoTime, Map<String, Long> values) {
        this.nanoTime = nanoTime;
        this.values = values;
    }

    static TcpExtReading of(NetstatCounters counters, long nanoTime, String... names) {
        Map<String, Long> values = new HashMap<>();
        for (String name : names) {
            counters.tcpExt(name).ifPresent(value -> values.put(name, value));
        }
        return new TcpExtReading(nanoTime, values);
    }

    OptionalLong value(String counter) {
        Long value = values.get(counter);
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /** How much the counter rose since {@code before}; empty without a reading before, or where either lacks it. */
    OptionalLong riseSince(TcpExtReading before, String counter) {
        OptionalLong now = value(counter);
        OptionalLong then = before.value(counter);
        if (now.isEmpty() || then.isEmpty()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Math.max(0, now.getAsLong() - then.getAsLong()));
    }
}
