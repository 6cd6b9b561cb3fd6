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

    /** The cluster as the provider's params name it; unknown when they name none. */
    private volatile ClusterAccess fromParams = ClusterAccess.unknown();
    /** The worker's bootstrap.servers, from the REST extension: measured when the params name no cluster. */
    private volatile ClusterAccess fromWorker = ClusterAccess.unknown();

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
    private final HandOutHistory handedOut = new HandOutHistory();
    private CompletableFuture<ProvidedSettings> inFlight;
    /** The cluster the last startup line named: each configure of each provider instance says it once. */
    private ClusterAccess announced = ClusterAccess.unknown();

    private boolean refusalLogged;
    // The measurer thread only:
    private boolean failureLogged;
    private boolean listingFailureLogged;
    private ClusterAccess listedFor = ClusterAccess.unknown();
    private List<InetSocketAddress> listedBrokers = List.of();
    private Instant listedAt = Instant.EPOCH;

    public ClusterTuning() {}

    /** The shared settings only, the cluster as it was (a tuning for a declared alias). */
    synchronized void configure(ConnectSettings settings) {
        config = settings.shared();
        refresh = Duration.ofMillis(settings.get(ConnectSettings.RTT_REFRESH_MS));
        probeTimeout = Duration.ofMillis(settings.get(ConnectSettings.RTT_PROBE_TIMEOUT_MS));
        current = null;
        lastGood = null;
    }

    /**
     * From the provider's params: the cluster they name wins over the worker's bootstrap.servers.
     * Says once which cluster it measures (never a secret) and starts measuring it at once, so the
     * first task build finds the advice ready; both wait while a param is still a placeholder of
     * another provider (Kafka's first, short-lived instance sees the params as written).
     */
    public synchronized void configure(ConnectSettings settings, ClusterAccess access) {
        configure(settings);
        fromParams = access;
        clusterChanged();
    }

    /** Measures this cluster, whatever the settings or the worker say (a tuning for another cluster). */
    synchronized void measureAt(String servers, String declaredBy) {
        fromParams = ClusterAccess.at(servers, declaredBy);
        current = null;
        lastGood = null;
    }

    /** The worker's bootstrap.servers, known once the REST extension is configured; used when the provider names none. */
    public synchronized void workerBootstrapServers(String servers) {
        fromWorker = ClusterAccess.ofWorker(servers);
        clusterChanged();
    }

    /** The cluster measured: the params', else the worker's; unknown when neither names one. */
    private ClusterAccess cluster() {
        ClusterAccess params = fromParams;
        return params.known() ? params : fromWorker;
    }

    /** Under the lock: the startup line and the first measurement, once per cluster. */
    private void clusterChanged() {
        ClusterAccess cluster = cluster();
        if (!cluster.known() || cluster.unresolvedKey().isPresent()) {
            return;
        }
        notifyAll(); // a placeholder waiting in refusal() for the REST extension
        refusalLogged = false;
        if (!cluster.equals(announced)) {
            announced = cluster;
            LOG.info(
                    "tcpsight config provider: ${tcpsight:fetch:...} and ${tcpsight:produce:...} measure the cluster at"
                            + " {}{}, for {} Mbit/s (tcpsight.target.throughput.mbit)",
                    cluster.describe(),
                    cluster.listsBrokers() ? ", each broker it lists with these settings" : "",
                    config.get(TcpsightConfig.TARGET_THROUGHPUT_MBIT));
        }
        if (current == null && lastGood == null) {
            measurement();
        }
    }

    /**
     * Empty when this tuning knows its cluster. Otherwise the refusal: the first caller waits up to
     * the probe timeout for the REST extension (Connect configures it just after the herder starts,
     * which may already build tasks), then one line names the missing param; nothing is handed out,
     * so a placeholder stays as written and never passes Kafka's defaults off as measured.
     */
    public Optional<String> refusal() {
        synchronized (this) {
            long deadline = System.nanoTime() + probeTimeout.toNanos();
            while (!refusalLogged && !cluster().known()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            ClusterAccess cluster = cluster();
            Optional<String> unresolved = cluster.unresolvedKey();
            if (cluster.known() && unresolved.isEmpty()) {
                return Optional.empty();
            }
            String line = "tcpsight config provider: refusing ${tcpsight:fetch:...} and ${tcpsight:produce:...}: "
                    + (cluster.known()
                            ? "the param " + unresolved.get() + " is still a ${...} placeholder, which no config"
                                    + " provider of the worker resolved (declare that provider in config.providers)"
                            : "no cluster to measure. Set " + ClusterAccess.BOOTSTRAP_PARAM
                                    + " to the worker's bootstrap.servers (with the worker's security.protocol, ssl.*"
                                    + " and sasl.* settings under the same prefix for a TLS or SASL listener), or add"
                                    + " the REST extension")
                    + "; until then these placeholders stay unresolved, and a connector or task that uses them fails"
                    + " on them, rather than run with Kafka's defaults as if they had been measured";
            if (!refusalLogged) {
                refusalLogged = true;
                LOG.warn(line);
            }
            return Optional.of(line);
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

    /** Advice for a task build; remembered with its time, so re-adaptation compares each task with what it got. */
    public ProvidedSettings handOut() {
        ProvidedSettings advice = advice();
        synchronized (this) {
            handedOut.record(Instant.now(), advice);
        }
        return advice;
    }

    /**
     * Records advice as handed out at a time: re-adaptation's restart (the rebuilt tasks get the
     * advice it just measured), or a test's hand-out at a time of its choosing.
     */
    public synchronized void handedOut(Instant at, ProvidedSettings advice) {
        handedOut.record(at, advice);
    }

    /** Whether any task or connector was handed advice here yet. */
    public synchronized boolean anyHandedOut() {
        return !handedOut.isEmpty();
    }

    /**
     * The advice a task built at {@code builtAt} may run with: what was handed out from {@code lead}
     * before its build (or from {@code notBefore}, if later) to the build, else what was in force then.
     */
    public synchronized List<ProvidedSettings> handedOutAround(Instant builtAt, Duration lead, Instant notBefore) {
        return handedOut.around(builtAt, lead, notBefore);
    }

    /** Every advice handed out here that is still remembered: for a task whose build time is not known. */
    public synchronized List<ProvidedSettings> everyHandedOut() {
        return handedOut.all();
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
        ClusterAccess cluster = cluster();
        String servers = cluster.bootstrapServers();
        try {
            Optional<String> unresolved = cluster.unresolvedKey();
            if (unresolved.isPresent()) {
                throw new IOException("the param " + unresolved.get()
                        + " is still a ${...} placeholder: no config provider of the worker resolved it");
            }
            List<InetSocketAddress> addresses = brokersToMeasure(cluster, now);
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
                    "tcpsight: RTT to {} is {} ms ({} us, the slowest of {}); recommending {} ({})",
                    servers,
                    String.format("%.2f", rttMicros / 1000.0),
                    rttMicros,
                    addresses.size() == 1 ? "1 broker" : addresses.size() + " brokers",
                    advice.values(),
                    advice.reason());
            failureLogged = false;
            return advice;
        } catch (IOException | RuntimeException failed) {
            if (!failureLogged) {
                LOG.warn(
                        "tcpsight: cannot measure the RTT to the cluster ({}: {}); handing out the safe fallback values {}",
                        servers.isEmpty()
                                ? "no bootstrap servers known; set " + ClusterAccess.BOOTSTRAP_PARAM
                                : servers,
                        cluster.scrub(failed.getMessage()),
                        ProvidedSettings.FALLBACK);
                failureLogged = true;
            }
            return ProvidedSettings.fallback(cluster.scrub(failed.getMessage()), now);
        }
    }

    /**
     * The addresses to probe: with the cluster's client settings, every broker it advertises (listed
     * again after an hour, or after a failed listing); else, or when listing fails, the bootstrap
     * servers, each counted as a broker.
     */
    private List<InetSocketAddress> brokersToMeasure(ClusterAccess cluster, Instant now) {
        List<InetSocketAddress> bootstrap = BootstrapServers.parse(cluster.bootstrapServers());
        if (!cluster.listsBrokers()) {
            return bootstrap;
        }
        if (cluster.equals(listedFor)
                && !listedBrokers.isEmpty()
                && listedAt.plus(Duration.ofHours(1)).isAfter(now)) {
            return listedBrokers;
        }
        Duration timeout = Duration.ofMillis(Math.max(5000, probeTimeout.toMillis()));
        try {
            listedBrokers = ClusterBrokers.list(cluster, timeout);
            listedFor = cluster;
            listedAt = now;
            listingFailureLogged = false;
            return listedBrokers;
        } catch (ClusterBrokers.ListingFailed failed) {
            listedBrokers = List.of();
            if (!listingFailureLogged) {
                listingFailureLogged = true;
                LOG.warn(
                        "tcpsight config provider: cannot list the brokers of {} with the params' client settings ({});"
                                + " measuring the bootstrap servers instead, each counted as one broker",
                        cluster.describe(),
                        cluster.scrub(failed.getMessage()));
            }
            return bootstrap;
        }
    }
}
