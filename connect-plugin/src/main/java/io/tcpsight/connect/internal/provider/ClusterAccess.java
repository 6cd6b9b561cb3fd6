package io.tcpsight.connect.internal.provider;

import io.tcpsight.connect.internal.settings.ConnectSettings;
import io.tcpsight.internal.config.SecretMasking;
import io.tcpsight.internal.model.BootstrapServers;
import io.tcpsight.internal.model.LogText;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigException;

/**
 * Where the worker's cluster is and how a client reaches it, as the config provider learns it: its
 * own params ({@code config.providers.tcpsight.param.bootstrap.servers}, {@code security.protocol},
 * {@code ssl.*}, {@code sasl.*}, {@code client.dns.lookup}; Kafka's own client keys, so the
 * worker's lines can be copied under the prefix), or the worker's bootstrap.servers that the REST
 * extension passes on. A config provider sees nothing of the worker config but its params, and
 * Strimzi drops the REST extension, so on Strimzi the params are the only way.
 *
 * <p>Nothing here ever prints a value of an ssl.* or sasl.* key: {@link #describe()} names the
 * servers and the protocol only.
 */
public final class ClusterAccess {
    /** The provider's param that names the cluster's brokers; Kafka's own key. */
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";

    public static final String SECURITY_PROTOCOL = "security.protocol";
    /** How the docs and the refusal spell the param in the worker config. */
    public static final String BOOTSTRAP_PARAM = "config.providers.tcpsight.param." + BOOTSTRAP_SERVERS;

    static final List<String> PROTOCOLS =
            Collections.unmodifiableList(Arrays.asList("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"));

    private final String bootstrapServers;
    private final String origin;
    private final Map<String, String> client;

    private ClusterAccess(String bootstrapServers, String origin, Map<String, String> client) {
        this.bootstrapServers = bootstrapServers;
        this.origin = origin;
        this.client = Collections.unmodifiableMap(new TreeMap<>(client));
    }

    /** No cluster known: neither the params nor the REST extension named one. */
    static ClusterAccess unknown() {
        return new ClusterAccess("", "", Map.of());
    }

    /** The worker's own bootstrap.servers, passed on by the REST extension (no security settings: it measures by handshakes). */
    static ClusterAccess ofWorker(String servers) {
        return new ClusterAccess(servers.trim(), "the worker's bootstrap.servers, from the REST extension", Map.of());
    }

    /** A cluster declared at an address only (an alias of {@link TuningByCluster}). */
    static ClusterAccess at(String servers, String origin) {
        return new ClusterAccess(servers.trim(), origin, Map.of());
    }

    /**
     * The cluster the provider's params name; {@link #known()} is false when they name none.
     * {@code tcpsight.bootstrap.servers}, the earlier spelling, is still read.
     *
     * @throws ConfigException naming the key, the value (never a secret's) and what is allowed
     */
    public static ClusterAccess fromParams(Map<String, ?> params) {
        String servers = text(params.get(BOOTSTRAP_SERVERS));
        String earlier = text(params.get(ConnectSettings.BOOTSTRAP_SERVERS.name()));
        if (!servers.isEmpty() && !earlier.isEmpty() && !servers.equals(earlier)) {
            throw new ConfigException(BOOTSTRAP_SERVERS + "=" + LogText.oneLine(servers) + " and "
                    + ConnectSettings.BOOTSTRAP_SERVERS.name() + "=" + LogText.oneLine(earlier)
                    + " name different clusters: set " + BOOTSTRAP_SERVERS + " alone");
        }
        String key = servers.isEmpty() ? ConnectSettings.BOOTSTRAP_SERVERS.name() : BOOTSTRAP_SERVERS;
        if (servers.isEmpty()) {
            servers = earlier;
        }
        if (!servers.isEmpty() && !placeholder(servers)) {
            int entries = (int) Arrays.stream(servers.split(","))
                    .filter(entry -> !entry.trim().isEmpty())
                    .count();
            if (BootstrapServers.parse(servers).size() != entries) {
                throw new ConfigException(key, LogText.oneLine(servers), "expected host:port[,host:port...]");
            }
        }
        Map<String, String> client = new HashMap<>();
        for (Map.Entry<String, ?> param : params.entrySet()) {
            if (isClientKey(param.getKey()) && param.getValue() != null) {
                client.put(param.getKey(), String.valueOf(param.getValue()).trim());
            }
        }
        String protocol = client.get(SECURITY_PROTOCOL);
        if (protocol != null && !placeholder(protocol)) {
            String upper = protocol.toUpperCase(Locale.ROOT);
            if (!PROTOCOLS.contains(upper)) {
                throw new ConfigException(
                        SECURITY_PROTOCOL,
                        LogText.oneLine(protocol),
                        "expected one of " + String.join(", ", PROTOCOLS));
            }
            client.put(SECURITY_PROTOCOL, upper); // Kafka takes any case; the log line shows one
        }
        if (protocol == null) {
            // Without it the client would speak PLAINTEXT and ignore them: a TLS listener then looks like a dead one.
            Optional<String> orphan = client.keySet().stream()
                    .filter(name -> name.startsWith("ssl.") || name.startsWith("sasl."))
                    .findFirst();
            if (orphan.isPresent()) {
                throw new ConfigException(orphan.get() + " is set but " + SECURITY_PROTOCOL
                        + " is not: set config.providers.tcpsight.param." + SECURITY_PROTOCOL + " to one of "
                        + String.join(", ", PROTOCOLS) + " (as the worker's own)");
            }
        }
        return new ClusterAccess(servers, "config.providers.tcpsight.param." + key, client);
    }

    /** Kafka client keys the provider takes among its params for reaching the cluster. */
    static boolean isClientKey(String key) {
        return key.equals(SECURITY_PROTOCOL)
                || key.equals("client.dns.lookup")
                || key.startsWith("ssl.")
                || key.startsWith("sasl.");
    }

    private static String text(Object value) {
        return value == null ? "" : String.valueOf(value).trim();
    }

    /** A value another config provider was to resolve and did not (yet). */
    private static boolean placeholder(String value) {
        return value.contains("${");
    }

    public boolean known() {
        return !bootstrapServers.isEmpty();
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * Whether the params gave the cluster's client settings (security.protocol at least): then the
     * provider asks the cluster for its brokers and measures each, not only the bootstrap address
     * (on Kubernetes a Service in front of all of them).
     */
    boolean listsBrokers() {
        return client.containsKey(SECURITY_PROTOCOL);
    }

    /**
     * The first param still holding a {@code ${provider:...}} placeholder: Kafka resolves the
     * params of the provider that serves connectors, but configures a short-lived one first, while
     * it resolves the worker config itself, with the params as written.
     */
    Optional<String> unresolvedKey() {
        if (placeholder(bootstrapServers)) {
            return Optional.of(BOOTSTRAP_SERVERS);
        }
        return client.entrySet().stream()
                .filter(entry -> placeholder(entry.getValue()))
                .map(Map.Entry::getKey)
                .findFirst();
    }

    /** An Admin client's config for listing the brokers, each call bounded by this timeout. */
    Map<String, Object> adminConfig(String clientId, Duration timeout) {
        Map<String, Object> config = new HashMap<>(client);
        config.put(BOOTSTRAP_SERVERS, bootstrapServers);
        config.put("client.id", clientId);
        String millis = Long.toString(Math.max(1, timeout.toMillis()));
        config.put("request.timeout.ms", millis);
        config.put("default.api.timeout.ms", millis);
        config.put("socket.connection.setup.timeout.ms", millis);
        return config;
    }

    /**
     * A message from Kafka's client with every secret param's value taken out, should a future
     * client quote one (today's name the key, never the value).
     */
    String scrub(String message) {
        String scrubbed = String.valueOf(message);
        for (Map.Entry<String, String> entry : client.entrySet()) {
            if (SecretMasking.isSecret(entry.getKey()) && entry.getValue().length() >= 4) {
                scrubbed = scrubbed.replace(entry.getValue(), SecretMasking.MASK);
            }
        }
        return LogText.oneLine(scrubbed);
    }

    /** Servers, protocol and where they came from, for one log line: never a secret. */
    String describe() {
        if (!known()) {
            return "no cluster";
        }
        StringBuilder text = new StringBuilder(LogText.oneLine(bootstrapServers))
                .append(" (security.protocol ")
                .append(client.getOrDefault(SECURITY_PROTOCOL, "not given: handshakes to these servers only"));
        String mechanism = client.get("sasl.mechanism");
        if (mechanism != null) {
            text.append(", sasl.mechanism ").append(LogText.oneLine(mechanism));
        }
        return text.append("; from ").append(origin).append(')').toString();
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof ClusterAccess)) {
            return false;
        }
        ClusterAccess that = (ClusterAccess) other;
        return bootstrapServers.equals(that.bootstrapServers)
                && origin.equals(that.origin)
                && client.equals(that.client);
    }

    @Override
    public int hashCode() {
        return Objects.hash(bootstrapServers, origin, client);
    }

    /** For tests and failures: {@link #describe()}, never a secret. */
    @Override
    public String toString() {
        return describe();
    }
}
