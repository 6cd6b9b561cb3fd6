package io.tcpsight.connect;

import io.tcpsight.connect.internal.policy.BufferCheck;
import io.tcpsight.connect.internal.policy.StartupPacer;
import io.tcpsight.connect.internal.policy.WorkerTaskStart;
import io.tcpsight.connect.internal.settings.ConnectSettings;
import io.tcpsight.connect.internal.settings.PluginVersion;
import io.tcpsight.connect.internal.state.PluginState;
import io.tcpsight.internal.config.InvalidSettingException;
import io.tcpsight.internal.config.SettingKey;
import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.model.LogText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigOverridePolicy;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code connector.client.config.override.policy=io.tcpsight.connect.TcpsightOverridePolicy}:
 * Connect's All, Principal or None policy decides what may be overridden
 * ({@code tcpsight.override.policy}, default All as in Connect), and tcpsight adds two things.
 * Each task client build waits for a JVM-wide token bucket, so a burst of task starts reaches
 * the brokers spread out; and a small buffer override on a long path is warned about (rejected
 * at validation only when asked).
 */
public class TcpsightOverridePolicy implements ConnectorClientConfigOverridePolicy {
    private static final Logger LOG = LoggerFactory.getLogger(TcpsightOverridePolicy.class);
    private static final String CONNECT_POLICIES = "org.apache.kafka.connect.connector.policy.";

    private ConnectorClientConfigOverridePolicy delegate;
    private StartupPacer pacer;
    private boolean rejectSmallBuffers;
    private TcpsightConfig shared;
    /** Connector/key/value combinations already warned about; at most this many remembered. */
    private static final int MAX_WARNED = 1024;

    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /**
     * Connect's policy decides; tcpsight adds pacing and buffer checks. If tcpsight's part cannot be
     * configured (a bad tcpsight key, a class that does not link), one line says so and Connect's
     * policy decides alone: the one named by tcpsight.override.policy when that names one, else
     * None, so that a mistake never allows more than the operator chose.
     */
    @Override
    public void configure(Map<String, ?> configs) {
        try {
            configureWithTcpsight(configs);
        } catch (Throwable failure) {
            pacer = null;
            shared = null;
            rejectSmallBuffers = false;
            String name = policyNamed(configs.get(ConnectSettings.OVERRIDE_POLICY.name()));
            delegate = connectPolicy(name);
            delegate.configure(configs);
            LOG.warn(
                    "tcpsight override policy: tcpsight's pacing and buffer checks are off, Connect's {} policy decides"
                            + " overrides alone; the worker runs on ({})",
                    name,
                    LogText.oneLine(
                            failure instanceof InvalidSettingException || failure instanceof ConfigException
                                    ? failure.getMessage()
                                    : failure.toString()));
        }
    }

    /** Connect's policy the setting names (its default when unset), or None when it names none. */
    private static String policyNamed(Object setting) {
        try {
            return ConnectSettings.OVERRIDE_POLICY.parse(setting);
        } catch (RuntimeException notAPolicy) {
            return "None";
        }
    }

    private void configureWithTcpsight(Map<String, ?> configs) {
        ConnectSettings settings = ConnectSettings.from(configs, ConnectSettings.POLICY_KEYS);
        shared = settings.shared();
        rejectSmallBuffers = settings.get(ConnectSettings.REJECT_SMALL_BUFFERS);
        String name = settings.get(ConnectSettings.OVERRIDE_POLICY);
        delegate = connectPolicy(name);
        delegate.configure(configs);
        if (settings.get(ConnectSettings.STARTUP_PACING)) {
            pacer = PluginState.worker()
                    .pacer(
                            settings.get(ConnectSettings.STARTUP_RATE),
                            settings.get(ConnectSettings.STARTUP_BURST),
                            settings.get(ConnectSettings.STARTUP_MAX_WAIT_MS));
        }
        LOG.info(
                "tcpsight override policy: Connect's {} policy decides overrides; task client builds {}; small buffer overrides are {}",
                name,
                pacer == null
                        ? "are not paced"
                        : "are paced at " + settings.get(ConnectSettings.STARTUP_RATE) + " per second (burst "
                                + settings.get(ConnectSettings.STARTUP_BURST) + ", wait at most "
                                + settings.get(ConnectSettings.STARTUP_MAX_WAIT_MS)
                                + " ms)",
                rejectSmallBuffers ? "rejected at validation" : "warned about");
    }

    /** Connect's own policy of that name, from the worker's class path. */
    static ConnectorClientConfigOverridePolicy connectPolicy(String name) {
        String className = CONNECT_POLICIES + name + "ConnectorClientConfigOverridePolicy";
        try {
            Class<?> type = Class.forName(className, true, ConnectorClientConfigOverridePolicy.class.getClassLoader());
            return (ConnectorClientConfigOverridePolicy)
                    type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError | ClassCastException missing) {
            throw new ConfigException(
                    ConnectSettings.OVERRIDE_POLICY.name(),
                    name,
                    "Connect's " + className + " cannot be loaded: " + missing);
        }
    }

    @Override
    public List<ConfigValue> validate(ConnectorClientConfigRequest request) {
        boolean taskBuild = WorkerTaskStart.isCurrent();
        if (taskBuild && pacer != null) {
            pacer.pace(
                    request.connectorName() + " " + request.clientType().name().toLowerCase());
        }
        List<ConfigValue> values = new ArrayList<>(delegate.validate(request));
        if (shared == null) {
            return values; // tcpsight's part is off (see configure)
        }
        try {
            checkBuffers(request, values, taskBuild);
        } catch (RuntimeException | LinkageError failure) {
            // Connect's policy has decided; tcpsight's check only adds to it
            LOG.warn(
                    "tcpsight override policy: the buffer check failed, Connect's policy decided alone: {}",
                    LogText.oneLine(failure.toString()));
        }
        return values;
    }

    private void checkBuffers(ConnectorClientConfigRequest request, List<ConfigValue> values, boolean taskBuild) {
        PluginState state = PluginState.worker();
        OptionalLong measured = state.workerCluster().lastRttMicros();
        if (measured.isEmpty()) {
            measured = state.workerPathRttMicros(); // what the REST extension measured to the worker's cluster
        }
        long rttMicros = measured.orElse(shared.ruleMinRttMicros());
        String prefix = request.clientType().name().toLowerCase() + ".override.";
        for (String key : new String[] {"receive.buffer.bytes", "send.buffer.bytes"}) {
            Object value = request.clientProps().get(key);
            if (value == null) {
                continue;
            }
            Optional<String> problem = BufferCheck.judge(
                            "connector " + request.connectorName(),
                            prefix + key,
                            value,
                            rttMicros,
                            measured.isPresent(),
                            shared)
                    .map(finding -> finding.remedy().why());
            if (!problem.isPresent()) {
                continue;
            }
            if (warned.size() >= MAX_WARNED) {
                warned.clear(); // bounded whatever connectors come and go; a repeat is one more log line
            }
            if (warned.add(request.connectorName() + "/" + prefix + key + "=" + value)) {
                LOG.warn("tcpsight: connector {}: {}", LogText.oneLine(request.connectorName(), problem.get()));
            }
            if (rejectSmallBuffers && !taskBuild) {
                ConfigValue target = values.stream()
                        .filter(v -> v.name().equals(key))
                        .findFirst()
                        .orElseGet(() -> {
                            ConfigValue added = new ConfigValue(key, value, new ArrayList<>(), new ArrayList<>());
                            values.add(added);
                            return added;
                        });
                target.addErrorMessage(
                        problem.get() + " (rejected because tcpsight.override.reject.small.buffers=true)");
            }
        }
    }

    @Override
    public ConfigDef config() {
        ConfigDef definition = new ConfigDef();
        for (SettingKey<?> key : ConnectSettings.POLICY_KEYS) {
            definition.define(
                    key.name(),
                    ConfigDef.Type.STRING,
                    String.valueOf(key.defaultValue()),
                    ConfigDef.Importance.LOW,
                    key.documentation() + " Allowed: " + key.allowed() + ".");
        }
        return definition;
    }

    @Override
    public String version() {
        return PluginVersion.fromManifest();
    }

    @Override
    public void close() throws Exception {
        if (delegate != null) {
            delegate.close();
        }
    }
}
