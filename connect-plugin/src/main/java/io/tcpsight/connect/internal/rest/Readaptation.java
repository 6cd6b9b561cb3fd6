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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.connect.health.ConnectClusterState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opt-in (tcpsight.readapt.enabled): measures the cluster again every interval and, when the
 * recommended values moved by more than tcpsight.readapt.factor from what this worker's tasks
 * were built with, restarts those tasks of connectors whose config uses ${tcpsight:...} through
 * the worker's REST API. Connect itself does not (KAFKA-17627).
 *
 * <p>Every worker of a cluster runs this, so each restarts only the tasks that run on itself
 * ({@link LocalTasks}): one restart per task and drift, cluster-wide. A worker whose tasks moved
 * away has none to restart, so its older baseline cannot restart anything again and again. After
 * a restart the new advice is the baseline: a drift is acted on once.
 */
public final class Readaptation implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Readaptation.class);
    static final String PLACEHOLDER = "${tcpsight:";

    private final ClusterTuning tuning;
    private final double factor;
    private final URI restUrl;
    private final Supplier<ConnectClusterState> cluster;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "tcpsight-connect-readapt");
        thread.setDaemon(true);
        return thread;
    });

    public Readaptation(ClusterTuning tuning, double factor, URI restUrl, Supplier<ConnectClusterState> cluster) {
        this.tuning = tuning;
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
        Optional<ProvidedSettings> handedOut = tuning.lastHandedOut();
        if (handedOut.isEmpty()) {
            return List.of(); // no task was built here with tcpsight values yet
        }
        ProvidedSettings before = handedOut.get();
        ProvidedSettings now = tuning.remeasure();
        if (now.isFallback()) {
            return List.of(); // never restart on a failed measurement
        }
        double drift = before.isFallback() ? Double.POSITIVE_INFINITY : now.driftFrom(before);
        if (drift <= factor) {
            return List.of();
        }
        Map<String, Set<Integer>> local = LocalTasks.read();
        List<String> restarted = new ArrayList<>();
        for (String connector : usingTcpsight(cluster.get())) {
            for (int task : local.getOrDefault(connector, Set.of())) {
                if (restart(connector, task)) {
                    restarted.add(connector + "/" + task);
                }
            }
        }
        if (restarted.isEmpty()) {
            // No task of ours is seen here now: one may be between builds (its client not yet in JMX) with
            // the old values. The drift is left standing, so the next check restarts it once it is seen.
            LOG.debug("tcpsight re-adaptation: values moved {}x, but no task here uses them now", drift);
            return restarted;
        }
        // The restarted tasks are rebuilt with the new values: this drift is dealt with.
        tuning.handedOut(now);
        LOG.info(
                "tcpsight re-adaptation: recommended values moved {}x (more than tcpsight.readapt.factor={}): {} -> {};"
                        + " restarted this worker's tasks {}",
                String.format("%.2f", drift),
                factor,
                before.values(),
                now.values(),
                LogText.oneLine(String.valueOf(restarted)));
        return restarted;
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
