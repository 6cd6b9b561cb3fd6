package io.tcpsight.internal.config;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The settings every tcpsight component shares. A key means the same thing wherever it is
 * accepted: agent arguments (without the prefix), Connect worker config, client config, CLI.
 * docs/configuration.md lists them; {@link #KEYS} is the source.
 */
public final class TcpsightConfig {
    public static final SettingKey<Long> SAMPLE_INTERVAL_MS = SettingKey.wholeNumber(
            "tcpsight.sample.interval.ms",
            10_000,
            100,
            3_600_000,
            "milliseconds",
            "How often connections are sampled.");
    public static final SettingKey<Double> SAMPLE_JITTER = SettingKey.decimal(
            "tcpsight.sample.jitter",
            0.1,
            0,
            0.5,
            "",
            "Each interval is randomly longer or shorter by up to this share, so that many JVMs do not sample in lockstep.");
    public static final SettingKey<Long> MAX_TRACKED_CONNECTIONS = SettingKey.wholeNumber(
            "tcpsight.max.tracked.connections",
            100_000,
            1,
            1_000_000,
            "connections",
            "Connections tracked at most; further ones are counted, not tracked, and named in an untracked-connections finding.");
    public static final SettingKey<Double> TARGET_THROUGHPUT_MBIT = SettingKey.decimal(
            "tcpsight.target.throughput.mbit",
            100,
            0.001,
            400_000,
            "Mbit/s",
            "The rate one connection should be able to reach; window and fetch-size rules judge against it.");
    public static final SettingKey<Long> FETCH_RECORD_BYTES = SettingKey.wholeNumber(
            "tcpsight.fetch.record.bytes",
            1024,
            16,
            104_857_600,
            "bytes",
            "The record size (key, value and headers as stored) the fetch tuner assumes when it sizes max.poll.records, so that "
                    + "one poll takes a whole fetch response from each broker and every broker's next fetch travels while the records"
                    + " are processed. "
                    + "Assume records smaller than yours rather than larger; a smaller size means longer polls.");
    public static final SettingKey<Double> RULE_MIN_RTT_MS = SettingKey.decimal(
            "tcpsight.rule.min.rtt.ms",
            10,
            0,
            60_000,
            "milliseconds",
            "Below this RTT, window and fetch-size rules stay silent: short paths are not window-bound in practice.");
    public static final SettingKey<Double> RULE_WINDOW_LIMITED_RATIO = SettingKey.decimal(
            "tcpsight.rule.window.limited.ratio",
            0.5,
            0.01,
            1,
            "",
            "Share of busy time limited by the peer's window or the own send buffer that raises a finding.");
    public static final SettingKey<Double> RULE_MIN_BUSY_RATIO = SettingKey.decimal(
            "tcpsight.rule.min.busy.ratio",
            0.05,
            0,
            1,
            "",
            "Share of an interval a connection must be busy sending before its limits are judged.");
    public static final SettingKey<Double> RULE_RETRANSMIT_RATIO = SettingKey.decimal(
            "tcpsight.rule.retransmit.ratio",
            0.01,
            0.0001,
            1,
            "",
            "Retransmitted over sent segments that raises a warning (five times this is critical).");
    public static final SettingKey<Long> RULE_MIN_SEGMENTS = SettingKey.wholeNumber(
            "tcpsight.rule.min.segments",
            1000,
            1,
            Long.MAX_VALUE,
            "segments",
            "Segments sent in an interval before its retransmit ratio is judged.");
    public static final SettingKey<Long> RULE_SLOW_HANDSHAKE_MS = SettingKey.wholeNumber(
            "tcpsight.rule.slow.handshake.ms",
            1000,
            1,
            600_000,
            "milliseconds",
            "Connection setup at least this long raises slow-handshake (a SYN was retransmitted).");
    public static final SettingKey<Double> RULE_ACCEPT_QUEUE_RATIO = SettingKey.decimal(
            "tcpsight.rule.accept.queue.ratio",
            0.8,
            0.01,
            1,
            "",
            "Accept-queue length over the effective backlog that raises listen-backlog-overflow.");
    public static final SettingKey<Double> RULE_BBR_MIN_RTT_MS = SettingKey.decimal(
            "tcpsight.rule.bbr.min.rtt.ms",
            20,
            0,
            60_000,
            "milliseconds",
            "From this RTT on, retransmissions under CUBIC or Reno advise BBR.");
    public static final SettingKey<Long> FINDING_LOG_INTERVAL_MS = SettingKey.wholeNumber(
            "tcpsight.finding.log.interval.ms",
            600_000,
            0,
            86_400_000,
            "milliseconds",
            "A finding is logged again for the same connection and rule at most this often.");
    public static final SettingKey<Long> METRICS_TOP_CONNECTIONS = SettingKey.wholeNumber(
            "tcpsight.metrics.top.connections",
            10,
            0,
            1_000,
            "connections",
            "Rows of the worst-connections gauges (tcpsight.top.connection.*, tagged client.id): connections with"
                    + " findings first; a row expires when its connection leaves the top.");
    public static final SettingKey<Boolean> METRICS_PEER_LABELS = SettingKey.flag(
            "tcpsight.metrics.peer.labels", false, "Tag the worst-connections rows with the peer address as well.");
    public static final SettingKey<Boolean> OTLP_ENABLED = SettingKey.flag(
            "tcpsight.otlp.enabled",
            false,
            "Push the meters over OTLP/HTTP as well (opt-in): to tcpsight.otlp.endpoint, else"
                    + " OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/metrics, else"
                    + " http://localhost:4318/v1/metrics.");
    public static final SettingKey<String> OTLP_ENDPOINT = SettingKey.text(
            "tcpsight.otlp.endpoint",
            "",
            "an http(s) URL of an OTLP/HTTP metrics receiver",
            "Where OTLP pushes go; empty takes the OpenTelemetry environment variables.");
    public static final SettingKey<String> OTLP_RESOURCE_ATTRIBUTES = SettingKey.text(
            "tcpsight.otlp.resource.attributes",
            "",
            "key=value pairs separated by commas or semicolons (semicolons in agent arguments)",
            "Resource attributes of the OTLP pushes, over OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME.");
    public static final SettingKey<Long> OTLP_STEP_MS = SettingKey.wholeNumber(
            "tcpsight.otlp.step.ms",
            60_000,
            1_000,
            3_600_000,
            "milliseconds",
            "How often OTLP pushes; OTEL_METRIC_EXPORT_INTERVAL when this is not set.");
    /** Replaced by {@link #METRICS_TOP_CONNECTIONS}: one series per connection grew without bound. */
    static final String RETIRED_PER_CONNECTION = "tcpsight.metrics.per.connection";

    public static final List<SettingKey<?>> KEYS = Collections.unmodifiableList(Arrays.asList(
            SAMPLE_INTERVAL_MS,
            SAMPLE_JITTER,
            MAX_TRACKED_CONNECTIONS,
            TARGET_THROUGHPUT_MBIT,
            FETCH_RECORD_BYTES,
            RULE_MIN_RTT_MS,
            RULE_WINDOW_LIMITED_RATIO,
            RULE_MIN_BUSY_RATIO,
            RULE_RETRANSMIT_RATIO,
            RULE_MIN_SEGMENTS,
            RULE_SLOW_HANDSHAKE_MS,
            RULE_ACCEPT_QUEUE_RATIO,
            RULE_BBR_MIN_RTT_MS,
            FINDING_LOG_INTERVAL_MS,
            METRICS_TOP_CONNECTIONS,
            METRICS_PEER_LABELS,
            OTLP_ENABLED,
            OTLP_ENDPOINT,
            OTLP_RESOURCE_ATTRIBUTES,
            OTLP_STEP_MS));

    private static final TcpsightConfig DEFAULTS = new TcpsightConfig(Collections.emptyMap());

    private final Map<SettingKey<?>, Object> values = new HashMap<>();
    private final Set<SettingKey<?>> given = new HashSet<>();

    private TcpsightConfig(Map<String, ?> originals) {
        if (originals.containsKey(RETIRED_PER_CONNECTION)) {
            throw new InvalidSettingException(
                    RETIRED_PER_CONNECTION,
                    originals.get(RETIRED_PER_CONNECTION),
                    "the key was removed because its series grew with every connection; use"
                            + " tcpsight.metrics.top.connections=N (0 to 1000) for a bounded table of the worst"
                            + " connections, and /connections for all of them");
        }
        for (SettingKey<?> key : KEYS) {
            values.put(key, key.parse(originals.get(key.name())));
            if (originals.get(key.name()) != null) {
                given.add(key);
            }
        }
    }

    public static TcpsightConfig defaults() {
        return DEFAULTS;
    }

    /**
     * Reads the tcpsight.* keys of a config map (a client, worker or agent config); other keys
     * are ignored.
     *
     * @throws InvalidSettingException for the first key whose value is not allowed
     */
    public static TcpsightConfig from(Map<String, ?> originals) {
        return new TcpsightConfig(originals);
    }

    @SuppressWarnings("unchecked")
    public <T> T get(SettingKey<T> key) {
        Object value = values.get(key);
        if (value == null) {
            // every key of this config has a value, its default at least: another component's key is a bug
            throw new IllegalArgumentException(key.name() + " is not a key of the shared tcpsight config");
        }
        return (T) value;
    }

    /** Whether the config named this key (a default was not taken). */
    public boolean given(SettingKey<?> key) {
        return given.contains(key);
    }

    /** tcpsight.rule.min.rtt.ms in microseconds: the RTT assumed where none was measured. */
    public long ruleMinRttMicros() {
        return Math.round(get(RULE_MIN_RTT_MS) * 1000);
    }

    /** tcpsight.rule.bbr.min.rtt.ms in microseconds: below it, the retransmissions rule does not recommend BBR. */
    public long ruleBbrMinRttMicros() {
        return Math.round(get(RULE_BBR_MIN_RTT_MS) * 1000);
    }

    public double targetBytesPerSecond() {
        return get(TARGET_THROUGHPUT_MBIT) * 1e6 / 8;
    }

    /** The shared key of this name; empty when there is none. */
    public static Optional<SettingKey<?>> key(String name) {
        for (SettingKey<?> key : KEYS) {
            if (key.name().equals(name)) {
                return Optional.of(key);
            }
        }
        return Optional.empty();
    }
}
