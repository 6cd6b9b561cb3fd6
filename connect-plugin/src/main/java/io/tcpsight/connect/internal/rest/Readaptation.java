package io.tcpsight.connect.internal.rest;

import io.tcpsight.connect.internal.provider.ClusterTuning;
import io.tcpsight.connect.internal.provider.ProvidedSettings;
import io.tcpsight.internal.model.LogText;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.connect.health.ConnectClusterState;
import org.apache.kafka.connect.health.ConnectorHealth;
import org.apache.kafka.connect.health.TaskState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opt-in (tcpsight.readapt.enabled): measures the cluster again every interval and, when the
 * recommended values moved by more than tcpsight.readapt.factor from what this worker's tasks
 * were built with, restarts those tasks of connectors whose config uses ${tcpsight:...} through
 * the worker's REST API. Connect itself does not (KAFKA-17627).
 *
 * <p>Every worker of a cluster runs this, so each restarts only the tasks that run on itself
 * ({@link LocalTasks}): one restart per task and drift, cluster-wide. Each task is compared with
 * the advice handed out when its clients were built (their start time in JMX), never with the
 * last advice handed out to anyone: a connector or another task built later with the new values
 * must not hide a task that still runs with the old. A task restarted here is compared again only
 * once rebuilt, and only with what was handed out after the restart: a drift is acted on once.
 *
 * <p>A drift is acted on only when two checks in a row measured it, within the factor of each
 * other: a measurement taken while the path changes mixes round trips of both paths (in the lab,
 * 11.75 ms as a 100 ms line became a 2 ms one), and acting on it would restart every task twice.
 */
public final class Readaptation implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Readaptation.class);
    static final String PLACEHOLDER = "${tcpsight:";
    /**
     * How long before a task's clients start its config may have been resolved: Connect resolves it
     * in the herder thread that then builds the task's clients at once (in the lab the task's
     * ConnectorConfig and its consumer's app-info were 13 ms apart). A hand-out longer before the
     * build belongs to an earlier build, unless nothing was handed out since.
     */
    static final Duration BUILD_LEAD = Duration.ofSeconds(2);
    /** A restarted task not seen again in this long moved to another worker; its restart is forgotten. */
    static final Duration FORGET_AFTER = Duration.ofMinutes(10);

    private final ClusterTuning tuning;
    private final Supplier<ProvidedSettings> measurement;
    private final double factor;
    private final Duration buildLead;
    private final URI restUrl;
    private final Supplier<ConnectClusterState> cluster;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** Tasks this worker restarted, until seen rebuilt; only the re-adaptation thread touches it. */
    private final Map<String, Restart> restarts = new HashMap<>();
    /** Tasks whose clients showed no start time at the last check; only the re-adaptation thread touches it. */
    private Set<String> withoutStartTime = Set.of();
    /** The last check's measurement, which this check's must agree with; only the re-adaptation thread touches it. */
    private ProvidedSettings lastMeasured;

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "tcpsight-connect-readapt");
        thread.setDaemon(true);
        return thread;
    });

    public Readaptation(ClusterTuning tuning, double factor, URI restUrl, Supplier<ConnectClusterState> cluster) {
        this(tuning, factor, restUrl, cluster, BUILD_LEAD);
    }

    /** With another build lead: a test's, so that builds can be told apart in milliseconds. */
    Readaptation(
            ClusterTuning tuning,
            double factor,
            URI restUrl,
            Supplier<ConnectClusterState> cluster,
            Duration buildLead) {
        this(tuning, tuning::remeasure, factor, restUrl, cluster, buildLead);
    }

    /** With the measurements a test gives, in place of the cluster's: a path that changes between checks. */
    Readaptation(
            ClusterTuning tuning,
            Supplier<ProvidedSettings> measurement,
            double factor,
            URI restUrl,
            Supplier<ConnectClusterState> cluster,
            Duration buildLead) {
        this.buildLead = buildLead;
        this.tuning = tuning;
        this.measurement = measurement;
        this.factor = factor;
        this.restUrl = restUrl;
        this.cluster = cluster;
    }

    public Readaptation start(Duration interval) {
        timer.scheduleWithFixedDelay(
                () -> {
                    try {
                        check();
                    } catch (RuntimeException unexpected) {
                        LOG.warn("tcpsight re-adaptation check failed: {}", unexpected.toString());
                    }
                },
                interval.toMillis(),
                interval.toMillis(),
                TimeUnit.MILLISECONDS);
        return this;
    }

    /** One check; returns the tasks it restarted, as connector/task. */
    List<String> check() {
        if (!tuning.anyHandedOut()) {
            return List.of(); // no task was built here with tcpsight values yet
        }
        ProvidedSettings now = measurement.get();
        if (now.isFallback()) {
            return List.of(); // never restart on a failed measurement
        }
        ProvidedSettings previous = lastMeasured;
        lastMeasured = now;
        boolean confirmed = previous != null && now.driftFrom(previous) <= factor;
        double unconfirmed = 0;
        Map<String, Map<Integer, Optional<Instant>>> local = LocalTasks.read();
        List<String> restarted = new ArrayList<>();
        List<String> builtWith = new ArrayList<>();
        Set<String> unknownNow = new HashSet<>();
        double worst = 0;
        ConnectClusterState state = cluster.get();
        Optional<String> ownWorker = LocalTasks.ownWorkerId();
        for (String connector : usingTcpsight(state)) {
            for (Map.Entry<Integer, Optional<Instant>> task :
                    local.getOrDefault(connector, Map.of()).entrySet()) {
                String id = connector + "/" + task.getKey();
                Optional<Instant> builtAt = task.getValue();
                Restart last = restarts.get(id);
                if (last != null && !rebuiltSince(builtAt, last, now)) {
                    continue; // restarted by us and not rebuilt yet: the same drift is acted on once
                }
                List<ProvidedSettings> candidates;
                if (builtAt.isPresent()) {
                    Instant notBefore = last == null ? Instant.EPOCH : last.at;
                    candidates = tuning.handedOutAround(builtAt.get(), buildLead, notBefore);
                } else if (withoutStartTime.contains(id)) {
                    candidates = tuning.everyHandedOut(); // still none a check later: any it may have had
                } else {
                    unknownNow.add(id); // its client is between its metrics and its app-info: the next check
                    continue;
                }
                double drift = 0;
                ProvidedSettings farthest = null;
                for (ProvidedSettings before : candidates) {
                    double moved = before.isFallback() ? Double.POSITIVE_INFINITY : now.driftFrom(before);
                    if (farthest == null || moved > drift) {
                        drift = moved;
                        farthest = before;
                    }
                }
                if (farthest == null || drift <= factor) {
                    continue;
                }
                if (!confirmed) {
                    unconfirmed = Math.max(unconfirmed, drift); // the next check measures again
                    continue;
                }
                if (!runsHere(state, connector, task.getKey(), ownWorker)) {
                    continue; // JMX still shows a task this worker is giving up: its new worker checks it
                }
                // Connect rebuilds the task inside the restart call, with the advice just measured: it is in force from
                // before the call, so the rebuilt task is compared with it, and only with what came after.
                Instant requested = Instant.now().truncatedTo(ChronoUnit.MILLIS); // a client's start time is in ms
                tuning.handedOut(requested, now);
                if (restart(connector, task.getKey())) {
                    restarted.add(id);
                    restarts.put(id, new Restart(connector, task.getKey(), requested, now));
                    worst = Math.max(worst, drift);
                    builtWith.add(
                            id + " built " + builtAt.map(Instant::toString).orElse("at an unknown time") + " with "
                                    + farthest.values());
                }
            }
        }
        withoutStartTime = unknownNow;
        forgetGone(local);
        if (unconfirmed > 0) {
            LOG.info(
                    "tcpsight re-adaptation: recommended values moved {}x (more than tcpsight.readapt.factor={}) to {};"
                            + " {}, so the next check measures again before any task is restarted",
                    String.format("%.2f", unconfirmed),
                    factor,
                    now.values(),
                    previous == null
                            ? "the first measurement of this worker"
                            : String.format(
                                    "%.2fx from the last check's %s", now.driftFrom(previous), previous.values()));
        }
        if (restarted.isEmpty()) {
            // A task of ours not seen here now may be between builds with the old values: the next
            // check compares it again with what it was built with, once its client is back.
            return restarted;
        }
        LOG.info(
                "tcpsight re-adaptation: recommended values moved {}x (more than tcpsight.readapt.factor={}): {} -> {};"
                        + " restarted this worker's tasks {}",
                String.format("%.2f", worst),
                factor,
                LogText.oneLine(String.valueOf(builtWith)),
                now.values(),
                LogText.oneLine(String.valueOf(restarted)));
        return restarted;
    }

    /**
     * Whether a task we restarted was built again since: its clients started after the restart,
     * or, with no start time to read, the advice moved again from what the restart was for.
     */
    private boolean rebuiltSince(Optional<Instant> builtAt, Restart last, ProvidedSettings now) {
        if (builtAt.isPresent()) {
            return builtAt.get().isAfter(last.at);
        }
        return now.driftFrom(last.forAdvice) > factor;
    }

    /**
     * Bounded by the tasks that run here: a restart is kept while its task is here (its time bounds
     * what the rebuilt task can have been handed), and forgotten once the task is gone for long.
     */
    private void forgetGone(Map<String, Map<Integer, Optional<Instant>>> local) {
        Instant now = Instant.now();
        restarts.entrySet().removeIf(entry -> {
            Restart restart = entry.getValue();
            boolean here = local.getOrDefault(restart.connector, Map.of()).containsKey(restart.task);
            if (here) {
                entry.getValue().seen = now;
            }
            return !here && entry.getValue().seen.plus(FORGET_AFTER).isBefore(now);
        });
    }

    private static final class Restart {
        final String connector;
        final int task;
        final Instant at;
        final ProvidedSettings forAdvice;
        Instant seen;

        Restart(String connector, int task, Instant at, ProvidedSettings forAdvice) {
            this.connector = connector;
            this.task = task;
            this.at = at;
            this.forAdvice = forAdvice;
            this.seen = at;
        }
    }

    /**
     * Whether Connect's status records this task on this worker. A worker's JMX still shows the
     * clients of a task it is giving up in a rebalance, and a restart asked for there rebuilds
     * nothing (seen: the task's new worker then found its own stale build and restarted it again).
     * Where this worker's id or the task's worker is unknown, the task counts as here, as before.
     */
    static boolean runsHere(ConnectClusterState state, String connector, int task, Optional<String> ownWorker) {
        if (state == null || ownWorker.isEmpty()) {
            return true;
        }
        try {
            ConnectorHealth health = state.connectorHealth(connector);
            TaskState recorded = health == null ? null : health.tasksState().get(task);
            return recorded == null
                    || recorded.workerId() == null
                    || recorded.workerId().equals(ownWorker.get());
        } catch (RuntimeException unknown) {
            return true; // a connector deleted meanwhile: its restart answers 404 and is logged
        }
    }

    /** Connectors whose raw config uses a tcpsight placeholder. */
    static List<String> usingTcpsight(ConnectClusterState state) {
        List<String> using = new ArrayList<>();
        if (state == null) {
            return using;
        }
        for (String connector : state.connectors()) {
            Map<String, String> config = state.connectorConfig(connector);
            if (config != null
                    && config.values().stream().anyMatch(value -> value != null && value.contains(PLACEHOLDER))) {
                using.add(connector);
            }
        }
        return using;
    }

    private boolean restart(String connector, int task) {
        URI uri = restUrl.resolve("/connectors/"
                + URLEncoder.encode(connector, StandardCharsets.UTF_8).replace("+", "%20")
                + "/tasks/" + task + "/restart");
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(uri)
                            .timeout(Duration.ofSeconds(30))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() >= 300) {
                LOG.warn(
                        "tcpsight re-adaptation: POST {} answered {}: {}", uri, response.statusCode(), response.body());
                return false;
            }
            return true;
        } catch (IOException failed) {
            LOG.warn(
                    "tcpsight re-adaptation: POST {} failed: {} (set tcpsight.readapt.rest.url if the REST API is elsewhere)",
                    uri,
                    failed.toString());
            return false;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** This worker's REST URL from its first listener; 0.0.0.0 or no host means loopback. */
    public static URI restUrl(Map<String, String> workerConfig, String explicit) {
        if (explicit != null && !explicit.isEmpty()) {
            return URI.create(explicit);
        }
        String listeners = workerConfig.getOrDefault("listeners", "http://:8083");
        String first = listeners.split(",")[0].trim();
        URI listener = URI.create(first.replace("://:", "://0.0.0.0:"));
        String host =
                listener.getHost() == null || listener.getHost().equals("0.0.0.0") ? "127.0.0.1" : listener.getHost();
        return URI.create(listener.getScheme() + "://" + host + ":" + listener.getPort());
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
