package io.tcpsight.connect.internal.settings;

import io.tcpsight.internal.config.InvalidSettingException;
import io.tcpsight.internal.config.SettingKey;
import io.tcpsight.internal.config.TcpsightConfig;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigException;

/**
 * The Connect plugin's own settings. They sit in the worker config (REST extension, override
 * policy) or under {@code config.providers.tcpsight.param.} (config provider), next to the
 * shared tcpsight.* keys of {@link TcpsightConfig}.
 */
public final class ConnectSettings {
    public static final SettingKey<String> OVERRIDE_POLICY = SettingKey.choice(
            "tcpsight.override.policy",
            "All",
            Arrays.asList("All", "Principal", "None"),
            "Which of Connect's own override policies decides what connectors may override; tcpsight only adds pacing and buffer checks.");
    public static final SettingKey<Boolean> STARTUP_PACING = SettingKey.flag(
            "tcpsight.startup.pacing",
            true,
            "Pace task client builds with a JVM-wide token bucket, so a burst of task starts does not overflow a broker's listen queue.");
    public static final SettingKey<Double> STARTUP_RATE = SettingKey.decimal(
            "tcpsight.startup.max.clients.per.second",
            40,
            0.1,
            100_000,
            "clients per second",
            "Task clients built per second at most, across all connectors of this worker.");
    public static final SettingKey<Long> STARTUP_BURST = SettingKey.wholeNumber(
            "tcpsight.startup.burst",
            4,
            1,
            100_000,
            "clients",
            "Task clients that may be built back to back before pacing sets in.");
    public static final SettingKey<Long> STARTUP_MAX_WAIT_MS = SettingKey.wholeNumber(
            "tcpsight.startup.max.wait.ms",
            1000,
            0,
            60_000,
            "milliseconds",
            "The longest a single task build waits for pacing; beyond it the build goes ahead (the herder waits on these builds).");
    public static final SettingKey<Boolean> REJECT_SMALL_BUFFERS = SettingKey.flag(
            "tcpsight.override.reject.small.buffers",
            false,
            "Reject, at validation only, a connector override of receive.buffer.bytes or send.buffer.bytes that caps a connection below "
                    + "tcpsight.target.throughput.mbit at the measured RTT. Task builds are never rejected.");
    public static final SettingKey<Long> RTT_REFRESH_MS = SettingKey.wholeNumber(
            "tcpsight.rtt.refresh.ms",
            60_000,
            1000,
            86_400_000,
            "milliseconds",
            "How long a measured RTT to the cluster is reused before it is measured again.");
    public static final SettingKey<Long> RTT_PROBE_TIMEOUT_MS = SettingKey.wholeNumber(
            "tcpsight.rtt.probe.timeout.ms",
            2000,
            100,
            60_000,
            "milliseconds",
            "Connect timeout of one RTT probe (a TCP handshake to a bootstrap server).");
    public static final SettingKey<String> BOOTSTRAP_SERVERS = SettingKey.text(
            "tcpsight.bootstrap.servers",
            "",
            "host:port[,host:port...]",
            "Where the config provider measures the RTT; the earlier spelling of its param bootstrap.servers, still read;"
                    + " empty means the worker's bootstrap.servers, from the REST extension.");
    public static final SettingKey<Boolean> READAPT = SettingKey.flag(
            "tcpsight.readapt.enabled",
            false,
            "Restart this worker's tasks of connectors that use ${tcpsight:...} values when the recommended values drift by more than "
                    + "tcpsight.readapt.factor (Connect does not restart tasks for a changed provider value, KAFKA-17627).");
    public static final SettingKey<Double> READAPT_FACTOR = SettingKey.decimal(
            "tcpsight.readapt.factor",
            2,
            1.1,
            100,
            "",
            "How far a recommended value must move (up or down, as a ratio) before connectors are restarted.");
    public static final SettingKey<Long> READAPT_INTERVAL_MS = SettingKey.wholeNumber(
            "tcpsight.readapt.check.interval.ms",
            300_000,
            10_000,
            86_400_000,
            "milliseconds",
            "How often re-adaptation measures again and compares.");
    public static final SettingKey<String> READAPT_REST_URL = SettingKey.text(
            "tcpsight.readapt.rest.url",
            "",
            "an http(s) URL",
            "This worker's REST URL for restarts; empty means derived from listeners.");

    public static final SettingKey<Boolean> REST_REDACT = SettingKey.flag(
            "tcpsight.rest.redact",
            false,
            "Leave principals and addresses out of /tcpsight/findings and /tcpsight/connections (client.ids,"
                    + " listeners and figures stay), as the agent's http.redact does; who may read /tcpsight/* at all"
                    + " is the worker REST server's own security.");

    public static final List<SettingKey<?>> POLICY_KEYS = Collections.unmodifiableList(Arrays.asList(
            OVERRIDE_POLICY, STARTUP_PACING, STARTUP_RATE, STARTUP_BURST, STARTUP_MAX_WAIT_MS, REJECT_SMALL_BUFFERS));
    public static final List<SettingKey<?>> PROVIDER_KEYS =
            Collections.unmodifiableList(Arrays.asList(RTT_REFRESH_MS, RTT_PROBE_TIMEOUT_MS, BOOTSTRAP_SERVERS));
    public static final List<SettingKey<?>> EXTENSION_KEYS = Collections.unmodifiableList(
            Arrays.asList(READAPT, READAPT_FACTOR, READAPT_INTERVAL_MS, READAPT_REST_URL, REST_REDACT));
    /** Every key of the plugin (for documentation). */
    public static final List<SettingKey<?>> ALL =
            Collections.unmodifiableList(Stream.of(POLICY_KEYS, PROVIDER_KEYS, EXTENSION_KEYS)
                    .flatMap(List::stream)
                    .collect(Collectors.toList()));

    private final Map<SettingKey<?>, Object> values = new HashMap<>();
    private final TcpsightConfig shared;

    private ConnectSettings(Map<String, ?> originals, List<SettingKey<?>> keys) {
        for (SettingKey<?> key : keys) {
            values.put(key, key.parse(originals.get(key.name())));
        }
        shared = TcpsightConfig.from(originals);
    }

    /**
     * Reads these keys and the shared tcpsight.* keys.
     *
     * @throws ConfigException naming the key, the value and what is allowed
     */
    public static ConnectSettings from(Map<String, ?> originals, List<SettingKey<?>> keys) {
        try {
            return new ConnectSettings(originals, keys);
        } catch (InvalidSettingException invalid) {
            // the message already names the key, the value (masked where it may be a secret) and what is allowed
            throw new ConfigException(invalid.getMessage());
        }
    }

    @SuppressWarnings("unchecked")
    public <T> T get(SettingKey<T> key) {
        Object value = values.get(key);
        if (value == null) {
            // every key read here has a value, its default at least
            throw new IllegalArgumentException(key.name() + " was not read here");
        }
        return (T) value;
    }

    public TcpsightConfig shared() {
        return shared;
    }
}
