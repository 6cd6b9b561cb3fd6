package io.tcpsight.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ResolvedServersTest {
    private static final InetSocketAddress OLD = new InetSocketAddress("10.0.0.3", 9092);
    private static final InetSocketAddress MOVED = new InetSocketAddress("10.0.0.4", 9092);

    @Test
    void resolvedWhenFirstAskedNotWhenMadeAndAgainOnlyAfterAMinute() {
        List<Object> lookups = new ArrayList<>();
        AtomicLong now = new AtomicLong(5_000_000_000L);
        List<Set<InetSocketAddress>> answers = new ArrayList<>(List.of(Set.of(OLD), Set.of(MOVED)));
        ResolvedServers servers = new ResolvedServers(
                "broker:9092",
                value -> {
                    lookups.add(value);
                    return answers.remove(0);
                },
                now::get);
        assertEquals(List.of(), lookups, "nothing resolved on the thread that makes it (the client's)");

        assertTrue(servers.contains(OLD));
        now.addAndGet(59_000_000_000L);
        assertTrue(servers.contains(OLD), "the same answer within the minute");
        assertEquals(List.of("broker:9092"), lookups);

        now.addAndGet(1_000_000_000L);
        assertFalse(servers.contains(OLD), "a broker that moved is followed after a minute");
        assertTrue(servers.contains(MOVED));
        assertEquals(2, lookups.size());
    }

    @Test
    void theRealResolverGivesEveryAddressWithItsPort() {
        ResolvedServers servers = new ResolvedServers("no-such-host.invalid:9094,127.0.0.1:9092");
        assertTrue(servers.contains(new InetSocketAddress("127.0.0.1", 9092)));
        assertFalse(servers.contains(new InetSocketAddress("127.0.0.1", 9093)), "another port of the same host");
    }
}
