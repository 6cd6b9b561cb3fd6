package io.tcpsight.connect;

import io.tcpsight.config.TcpsightConfig;
import io.tcpsight.host.HostTcpFacts;
import io.tcpsight.model.BootstrapServers;
import io.tcpsight.tuning.FetchSizing;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recommends consumer fetch sizes and buffers for this worker's cluster from a measured RTT and
 * the configured target rate. A measurement is reused for tcpsight.rtt.refresh.ms, so rebuilding
 * many tasks measures once. One per plugin class loader, shared by the config provider, the
 * override policy and the REST extension.
 */
public final class FetchAdvisor {
    private static final Logger LOG = LoggerFactory.getLogger(FetchAdvisor.class);
    private static final FetchAdvisor SHARED = new FetchAdvisor();

    private volatile Supplier<String> bootstrapServers = () -> "";
    private volatile TcpsightConfig config = TcpsightConfig.defaults();
    private volatile Duration refresh = Duration.ofMinutes(1);
    private volatile Duration probeTimeout = Duration.ofSeconds(2);
    private FetchAdvice current;
    private FetchAdvice lastHandedOut;
    private boolean failureLogged;

    FetchAdvisor() {}

    static FetchAdvisor shared() {
        return SHARED;
    }

    /** From the provider's params; an explicit bootstrap list there wins over the worker's. */
    synchronized void configure(ConnectSettings settings) {
        config = settings.shared();
        refresh = Duration.ofMillis(settings.get(ConnectSettings.RTT_REFRESH_MS));
        probeTimeout = Duration.ofMillis(settings.get(ConnectSettings.RTT_PROBE_TIMEOUT_MS));
        String explicit = settings.get(ConnectSettings.BOOTSTRAP_SERVERS);
        if (!explicit.isEmpty()) {
            bootstrapServers = () -> explicit;
        }
        current = null;
    }

    /** The worker's bootstrap.servers, known once the REST extension is configured; used when the provider names none. */
    synchronized void workerBootstrapServers(String servers) {
        if (bootstrapServers.get().isEmpty()) {
            bootstrapServers = () -> servers;
        }
    }

    /** Advice no older than the refresh interval; measures when needed. Never throws: failures give fallback advice. */
    synchronized FetchAdvice advice() {
        Instant now = Instant.now();
        if (current == null || current.measuredAt().plus(refresh).isBefore(now)) {
            current = measure(now);
        }
        return current;
    }

    /** Advice for a task build; remembered, so re-adaptation can compare against what tasks run with. */
    synchronized FetchAdvice handOut() {
        lastHandedOut = advice();
        return lastHandedOut;
    }

    synchronized FetchAdvice lastHandedOut() {
        return lastHandedOut;
    }

    /** Measures now, ignoring the cache (re-adaptation). */
    synchronized FetchAdvice remeasure() {
        current = measure(Instant.now());
        return current;
    }

    /** The RTT of the last successful measurement, if any. */
    synchronized OptionalLong lastRttMicros() {
        return current == null ? OptionalLong.empty() : current.rttMicros();
    }

    private FetchAdvice measure(Instant now) {
        String servers = bootstrapServers.get();
        List<InetSocketAddress> addresses = BootstrapServers.parse(servers);
        try {
            long rttMicros = ClusterRtt.measureMicros(addresses, probeTimeout);
            Long rmemMax = null;
            try {
                rmemMax = HostTcpFacts.current()
                        .tcpRmem()
                        .map(limits -> limits.maxBytes())
                        .orElse(null);
            } catch (RuntimeException unreadable) {
                // the recommendation then does not judge the host's limit
            }
            FetchSizing.Recommendation recommendation = FetchSizing.recommend(new FetchSizing.Input(
                    rttMicros,
                    config.targetBytesPerSecond(),
                    1,
                    rmemMax,
                    null,
                    config.get(TcpsightConfig.FETCH_RECORD_BYTES)));
            if (recommendation.tcpRmemMaxTooLow()) {
                LOG.warn(
                        "tcpsight: net.ipv4.tcp_rmem max on this host is {} bytes; reaching {} Mbit/s at {} ms needs at least {}"
                                + " (sysctl -w net.ipv4.tcp_rmem='4096 131072 {}')",
                        rmemMax,
                        config.get(TcpsightConfig.TARGET_THROUGHPUT_MBIT),
                        rttMicros / 1000.0,
                        recommendation.requiredTcpRmemMax(),
                        recommendation.requiredTcpRmemMax());
            }
            FetchAdvice advice = FetchAdvice.measured(recommendation, rttMicros, now);
            LOG.info(
                    "tcpsight: RTT to {} is {} ms; recommending {} ({})",
                    servers,
                    String.format("%.2f", rttMicros / 1000.0),
                    advice.values(),
                    advice.reason());
            failureLogged = false;
            return advice;
        } catch (IOException | RuntimeException failed) {
            if (!failureLogged) {
                LOG.warn(
                        "tcpsight: cannot measure the RTT to the cluster ({}: {}); handing out the safe fallback values {}",
                        servers.isEmpty()
                                ? "no bootstrap servers known; set config.providers.tcpsight.param.tcpsight.bootstrap.servers"
                                : servers,
                        failed.getMessage(),
                        FetchAdvice.FALLBACK);
                failureLogged = true;
            }
            return FetchAdvice.fallback(String.valueOf(failed.getMessage()), now);
        }
    }
}
