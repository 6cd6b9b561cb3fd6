package io.tcpsight.connect.internal.provider;

import io.tcpsight.connect.internal.settings.ConnectSettings;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.model.BootstrapServers;
import io.tcpsight.internal.tuning.BdpSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recommends consumer fetch sizes and buffers for this worker's cluster from a measured RTT and
 * the configured target rate. A measurement is reused for tcpsight.rtt.refresh.ms, so rebuilding
 * many tasks measures once. One per plugin class loader, shared by the config provider, the
 * override policy and the REST extension.
 *
 * <p>Measuring takes handshakes, DNS and, against a blackholed broker, every probe's timeout, so
 * it never runs under the lock that config resolution and task validation take: one measurement
 * at a time runs on its own thread, and a caller waits for it at most the probe timeout. Until it
 * ends, callers get the last good advice (a stale one is refreshed in the background), or the
 * safe fallback when there is none yet.
 */
public final class ClusterTuning {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterTuning.class);

    private volatile Supplier<String> bootstrapServers = () -> "";
    private volatile TcpsightConfig config = TcpsightConfig.defaults();
    private volatile Duration refresh = Duration.ofMinutes(1);
    private volatile Duration probeTimeout = Duration.ofSeconds(2);
    private final ExecutorService measurer = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "tcpsight-connect-rtt");
        thread.setDaemon(true);
        return thread;
    });
    // Guarded by this:
    private ProvidedSettings current;
    private ProvidedSettings lastGood;
    private ProvidedSettings lastHandedOut;
    private CompletableFuture<ProvidedSettings> inFlight;
    // The measurer thread only:
    private boolean failureLogged;

    public ClusterTuning() {}

    /** From the provider's params; an explicit bootstrap list there wins over the worker's. */
    public synchronized void configure(ConnectSettings settings) {
        config = settings.shared();
        refresh = Duration.ofMillis(settings.get(ConnectSettings.RTT_REFRESH_MS));
        probeTimeout = Duration.ofMillis(settings.get(ConnectSettings.RTT_PROBE_TIMEOUT_MS));
        String explicit = settings.get(ConnectSettings.BOOTSTRAP_SERVERS);
        if (!explicit.isEmpty()) {
            bootstrapServers = () -> explicit;
        }
        current = null;
        lastGood = null;
    }

    /** Measures this cluster, whatever the settings or the worker say (a tuning for another cluster). */
    synchronized void measureAt(String servers) {
        bootstrapServers = () -> servers;
        current = null;
        lastGood = null;
    }

    /** The worker's bootstrap.servers, known once the REST extension is configured; used when the provider names none. */
    public synchronized void workerBootstrapServers(String servers) {
        if (bootstrapServers.get().isEmpty()) {
            bootstrapServers = () -> servers;
        }
    }

    /**
     * Advice no older than the refresh interval where it can be had within the probe timeout;
     * else the last good advice, else the fallback. Never throws, never waits on another caller's
     * measurement for longer than the probe timeout.
     */
    ProvidedSettings advice() {
        CompletableFuture<ProvidedSettings> pending;
        ProvidedSettings meanwhile;
        synchronized (this) {
            if (current != null && !current.measuredAt().plus(refresh).isBefore(Instant.now())) {
                return current;
            }
            pending = measurement();
            meanwhile = lastGood;
        }
        if (meanwhile != null) {
            return meanwhile; // stale but good; the fresh one lands in the background
        }
        return await(pending, probeTimeout);
    }

    /** Advice for a task build; remembered, so re-adaptation can compare against what tasks run with. */
    public ProvidedSettings handOut() {
        ProvidedSettings advice = advice();
        synchronized (this) {
            lastHandedOut = advice;
        }
        return advice;
    }

    /** The advice tasks were last built with here; empty before the first. */
    public synchronized Optional<ProvidedSettings> lastHandedOut() {
        return Optional.ofNullable(lastHandedOut);
    }

    /** Re-adaptation's baseline after it restarted tasks: they are rebuilt with this advice. */
    public synchronized void handedOut(ProvidedSettings advice) {
        lastHandedOut = advice;
    }

    /** Measures now, ignoring the cache (re-adaptation, on its own thread: it may wait for the whole measurement). */
    public ProvidedSettings remeasure() {
        CompletableFuture<ProvidedSettings> pending;
        synchronized (this) {
            current = null;
            pending = measurement();
        }
        return await(pending, Duration.ofMinutes(5));
    }

    /** The RTT of the last successful measurement, if any. */
    public synchronized OptionalLong lastRttMicros() {
        return lastGood == null ? OptionalLong.empty() : lastGood.rttMicros();
    }

    /** The measurement in flight, or a new one; called under the lock. */
    private CompletableFuture<ProvidedSettings> measurement() {
        if (inFlight != null) {
            return inFlight;
        }
        CompletableFuture<ProvidedSettings> started = new CompletableFuture<>();
        inFlight = started;
        try {
            measurer.execute(() -> {
                ProvidedSettings measured = ProvidedSettings.fallback("the RTT measurement failed", Instant.now());
                try {
                    measured = measure(Instant.now());
                } finally {
                    // Even after an Error: a measurement left in flight would make every caller wait it out.
                    synchronized (this) {
                        current = measured;
                        if (!measured.isFallback()) {
                            lastGood = measured;
                        }
                        inFlight = null;
                    }
                    started.complete(measured);
                }
            });
        } catch (RejectedExecutionException stopped) {
            inFlight = null;
            started.complete(ProvidedSettings.fallback("the RTT measurer is stopped", Instant.now()));
        }
        return started;
    }

    /** The measurement's advice, or the fallback once {@code limit} has passed; never completed exceptionally. */
    private static ProvidedSettings await(CompletableFuture<ProvidedSettings> pending, Duration limit) {
        ProvidedSettings late = ProvidedSettings.fallback(
                "the RTT measurement did not finish within " + limit.toMillis() + " ms", Instant.now());
        return pending.copy()
                .completeOnTimeout(late, limit.toMillis(), TimeUnit.MILLISECONDS)
                .join();
    }

    private ProvidedSettings measure(Instant now) {
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
            // the bootstrap list's count stands for the brokers a consumer fetches from at once
            BdpSettings.Recommendation recommendation = BdpSettings.recommend(new BdpSettings.Input(
                            rttMicros,
                            config.targetBytesPerSecond(),
                            1,
                            rmemMax,
                            null,
                            config.get(TcpsightConfig.FETCH_RECORD_BYTES))
                    .fetchingFrom(addresses.size())); // not empty: the RTT was measured to them
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
            ProvidedSettings advice = ProvidedSettings.measured(recommendation, rttMicros, now);
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
                        ProvidedSettings.FALLBACK);
                failureLogged = true;
            }
            return ProvidedSettings.fallback(String.valueOf(failed.getMessage()), now);
        }
    }
}
