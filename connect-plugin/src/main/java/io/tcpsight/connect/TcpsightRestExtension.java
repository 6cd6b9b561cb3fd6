package io.tcpsight.connect;

import io.tcpsight.connect.internal.observation.WorkerObservation;
import io.tcpsight.connect.internal.policy.BufferCheck;
import io.tcpsight.connect.internal.rest.Readaptation;
import io.tcpsight.connect.internal.rest.TcpsightEndpoints;
import io.tcpsight.connect.internal.rest.TcpsightJavaxResource;
import io.tcpsight.connect.internal.rest.TcpsightResource;
import io.tcpsight.connect.internal.settings.ConnectSettings;
import io.tcpsight.connect.internal.settings.PluginVersion;
import io.tcpsight.connect.internal.state.PluginState;
import io.tcpsight.internal.config.InvalidSettingException;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.LogText;
import io.tcpsight.internal.tcp.TcpSockets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.health.ConnectClusterState;
import org.apache.kafka.connect.rest.ConnectRestExtension;
import org.apache.kafka.connect.rest.ConnectRestExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code rest.extension.classes=io.tcpsight.connect.TcpsightRestExtension}. At configure() it
 * judges the worker's client buffers at once; at register() it starts observing the worker's
 * connections and serves /tcpsight/findings, /tcpsight/connections and /tcpsight/metrics.
 * Fails open: a problem is one log line, and the worker runs on.
 */
public class TcpsightRestExtension implements ConnectRestExtension {
    private static final Logger LOG = LoggerFactory.getLogger(TcpsightRestExtension.class);

    private Map<String, String> workerConfig;
    private ConnectSettings settings;
    private volatile ConnectClusterState clusterState;
    private WorkerObservation observation;
    private Readaptation readaptation;

    /** Any failure here is one line, and the extension stays off: register() then adds nothing. */
    @Override
    public void configure(Map<String, ?> configs) {
        try {
            configureWithTcpsight(configs);
        } catch (Throwable failure) {
            settings = null;
            LOG.warn(
                    "tcpsight: the REST extension is off, the worker runs on: {}",
                    LogText.oneLine(
                            failure instanceof InvalidSettingException || failure instanceof ConfigException
                                    ? failure.getMessage()
                                    : failure.toString()));
        }
    }

    private void configureWithTcpsight(Map<String, ?> configs) {
        settings = ConnectSettings.from(configs, ConnectSettings.EXTENSION_KEYS);
        workerConfig = new HashMap<>();
        configs.forEach((key, value) -> workerConfig.put(key, value == null ? null : String.valueOf(value)));
        String bootstrap = workerConfig.get("bootstrap.servers");
        if (bootstrap != null) {
            PluginState.worker().workerCluster().workerBootstrapServers(bootstrap);
        }
        TcpsightConfig shared = settings.shared();
        for (Finding finding : BufferCheck.worker(workerConfig, shared.ruleMinRttMicros(), false, shared)) {
            LOG.warn("tcpsight: worker config: {}", finding.remedy().why());
        }
    }

    @Override
    public void register(ConnectRestExtensionContext context) {
        if (settings == null) {
            return; // off since configure(), which said why
        }
        try {
            clusterState = context.clusterState();
            if (!TcpSockets.availability().isAvailable()) {
                LOG.warn(TcpSockets.availability()
                        .unavailableLine("tcpsight", "/tcpsight shows connections without kernel state"));
            } else {
                TcpSockets.nativeAccessAdviceOnce().ifPresent(LOG::warn);
            }
            observation = new WorkerObservation(
                            workerConfig,
                            settings.shared(),
                            () -> clusterState,
                            workerConfig.getOrDefault("group.id", "connect"))
                    .start();
            if (settings.get(ConnectSettings.READAPT)) {
                readaptation = new Readaptation(
                                PluginState.worker().workerCluster(),
                                settings.get(ConnectSettings.READAPT_FACTOR),
                                Readaptation.restUrl(workerConfig, settings.get(ConnectSettings.READAPT_REST_URL)),
                                () -> clusterState)
                        .start(Duration.ofMillis(settings.get(ConnectSettings.READAPT_INTERVAL_MS)));
            }
            // last: nothing after it can fail and leave /tcpsight/* serving what was closed
            registerResource(context, new TcpsightEndpoints(observation, settings.get(ConnectSettings.REST_REDACT)));
            LOG.info(
                    "tcpsight: observing this worker's broker connections every {} ms; GET /tcpsight/findings, /tcpsight/connections,"
                            + " /tcpsight/metrics{}",
                    settings.shared().get(TcpsightConfig.SAMPLE_INTERVAL_MS),
                    readaptation == null ? "" : "; re-adaptation on");
        } catch (Throwable failed) {
            LOG.warn("tcpsight: the REST extension is off, the worker runs on: {}", LogText.oneLine(failed.toString()));
            close();
        }
    }

    /**
     * Registers the resource of the worker's JAX-RS namespace. {@code configurable()} returns a
     * javax.ws.rs Configurable on Connect 3.x and a jakarta.ws.rs one on 4.x, so it is called
     * reflectively: a direct call, compiled against one, is a NoSuchMethodError on the other.
     */
    static void registerResource(ConnectRestExtensionContext context, TcpsightEndpoints endpoints)
            throws ReflectiveOperationException {
        Object configurable =
                ConnectRestExtensionContext.class.getMethod("configurable").invoke(context);
        ClassLoader jaxRs = configurable.getClass().getClassLoader();
        Class<?> api = jaxRsConfigurable(configurable, jaxRs, "jakarta.ws.rs.core.Configurable");
        Object resource;
        if (api != null) {
            resource = new TcpsightResource(endpoints);
        } else {
            api = jaxRsConfigurable(configurable, jaxRs, "javax.ws.rs.core.Configurable");
            if (api == null) {
                throw new IllegalStateException("the worker's REST server is neither jakarta.ws.rs nor javax.ws.rs: "
                        + configurable.getClass().getName());
            }
            resource = javaxResource(endpoints);
        }
        api.getMethod("register", Object.class).invoke(configurable, resource);
    }

    /** Only this method names the javax resource, so that a 4.x worker never loads it. */
    private static Object javaxResource(TcpsightEndpoints endpoints) {
        return new TcpsightJavaxResource(endpoints);
    }

    /** The named Configurable interface if {@code configurable} implements it, else null. */
    private static Class<?> jaxRsConfigurable(Object configurable, ClassLoader loader, String name) {
        try {
            Class<?> api = Class.forName(name, false, loader);
            return api.isInstance(configurable) ? api : null;
        } catch (ClassNotFoundException | LinkageError absent) {
            return null;
        }
    }

    @Override
    public String version() {
        return PluginVersion.fromManifest();
    }

    @Override
    public void close() {
        try {
            if (readaptation != null) {
                readaptation.close();
            }
            if (observation != null) {
                observation.close();
            }
        } catch (Throwable failed) {
            LOG.warn(
                    "tcpsight: closing the REST extension failed; the worker closes as usual: {}",
                    LogText.oneLine(failed.toString()));
        } finally {
            readaptation = null;
            observation = null;
        }
    }
}
