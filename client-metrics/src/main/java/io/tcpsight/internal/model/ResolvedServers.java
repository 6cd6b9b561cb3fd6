package io.tcpsight.internal.model;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A {@code bootstrap.servers} value's addresses, the brokers a path certainly leads to: resolved
 * when first asked (on the sampler's thread, never the client's, whose constructor configures the
 * reporter) and again once a minute, so a broker that moved is followed and a name that resolves
 * only later is taken up. A minute bounds the lookups a name that does not resolve costs.
 */
public final class ResolvedServers {
    private static final long REFRESH_NANOS = Duration.ofMinutes(1).toNanos();

    private final Object servers;
    private final Function<Object, Set<InetSocketAddress>> resolver;
    private final LongSupplier nanoClock;
    /** Null until first asked. */
    private Set<InetSocketAddress> addresses;

    private long resolvedAt;

    public ResolvedServers(Object servers) {
        this(servers, BootstrapServers::resolve, System::nanoTime);
    }

    ResolvedServers(Object servers, Function<Object, Set<InetSocketAddress>> resolver, LongSupplier nanoClock) {
        this.servers = servers;
        this.resolver = resolver;
        this.nanoClock = nanoClock;
    }

    /** Whether a path to this address is certainly to these servers' cluster. */
    public synchronized boolean contains(InetSocketAddress remote) {
        long now = nanoClock.getAsLong();
        if (addresses == null || now - resolvedAt >= REFRESH_NANOS) {
            addresses = resolver.apply(servers);
            resolvedAt = now;
        }
        return addresses.contains(remote);
    }
}
