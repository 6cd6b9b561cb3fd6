package io.tcpsight.agent.internal.naming;

import io.tcpsight.internal.diagnose.finding.JsonText;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;

/**
 * The broker's own socket and replica fetch settings, as Kafka was started with them: the
 * properties file {@code kafka.Kafka} was given, then its {@code --override key=value} arguments
 * (the JVM's {@code sun.java.command}). A key the file does not set is Kafka's default, in effect
 * as surely. Kafka reads these once, broker-wide (its SocketServer and replica fetchers take
 * them from the broker's config, with no listener prefix), so what the file says is what every
 * socket got. Empty in a JVM that is not a broker started this way (a client with the agent,
 * an embedded broker): the rules then judge from the sockets alone, as before.
 */
public final class BrokerSocketSettings {
    public static final String SEND_BUFFER = "socket.send.buffer.bytes";
    public static final String RECEIVE_BUFFER = "socket.receive.buffer.bytes";
    public static final String LISTEN_BACKLOG = "socket.listen.backlog.size";
    public static final String REPLICA_RECEIVE_BUFFER = "replica.socket.receive.buffer.bytes";
    public static final String REPLICA_FETCH_MAX = "replica.fetch.max.bytes";
    public static final String REPLICA_FETCH_RESPONSE_MAX = "replica.fetch.response.max.bytes";

    /** Kafka's defaults for the keys read (the same in 3.9 and 4.x). */
    static final Map<String, Integer> DEFAULTS = defaults();

    private static final String BROKER_MAIN = "kafka.Kafka";
    private static final String OVERRIDE = "--override";

    /** What a connection a client opened to this broker got: the listener's socket settings. */
    static final List<String> LISTENER_KEYS = List.of(SEND_BUFFER, RECEIVE_BUFFER, LISTEN_BACKLOG);
    /** What this broker's own replica fetchers (a follower's connections to the leaders) run with. */
    static final List<String> REPLICA_FETCHER_KEYS =
            List.of(REPLICA_RECEIVE_BUFFER, REPLICA_FETCH_MAX, REPLICA_FETCH_RESPONSE_MAX);
    /** The source as /connections shows it, at most this long: a path, never a value of the file. */
    static final int MAX_SOURCE_CHARS = 256;

    private final Map<String, Integer> values;
    private final Map<String, Boolean> defaulted;
    private final String source;
    /** Rendered once: every connection of a kind shows the same object. */
    private final String listenerJson;

    private final String replicaFetcherJson;

    private BrokerSocketSettings(Map<String, Integer> values, Map<String, Boolean> defaulted, String source) {
        this.values = values;
        this.defaulted = defaulted;
        this.source = source;
        this.listenerJson = json(LISTENER_KEYS);
        this.replicaFetcherJson = json(REPLICA_FETCHER_KEYS);
    }

    private static Map<String, Integer> defaults() {
        Map<String, Integer> defaults = new LinkedHashMap<>();
        defaults.put(SEND_BUFFER, 102_400);
        defaults.put(RECEIVE_BUFFER, 102_400);
        defaults.put(LISTEN_BACKLOG, 50);
        defaults.put(REPLICA_RECEIVE_BUFFER, 65_536);
        defaults.put(REPLICA_FETCH_MAX, 1_048_576);
        defaults.put(REPLICA_FETCH_RESPONSE_MAX, 10_485_760);
        return defaults;
    }

    /** Nothing known, and why: the line the agent logs says so. */
    public static BrokerSocketSettings unknown(String why) {
        return new BrokerSocketSettings(Map.of(), Map.of(), why);
    }

    /** What this JVM's command line says, read from its properties file. */
    public static BrokerSocketSettings ofThisJvm() {
        return fromCommandLine(System.getProperty("sun.java.command"));
    }

    /**
     * From a command line as {@code sun.java.command} gives it: the main class, then its arguments,
     * split at spaces. A properties file whose path holds a space cannot be told apart here, and is
     * reported as unreadable.
     */
    static BrokerSocketSettings fromCommandLine(String command) {
        if (command == null || command.isBlank()) {
            return unknown("no command line to read the broker's config from");
        }
        String[] words = command.trim().split("\\s+");
        if (!words[0].equals(BROKER_MAIN) || words.length < 2) {
            return unknown("not a broker started by " + BROKER_MAIN + " with a properties file");
        }
        Properties properties = new Properties();
        Path file = Paths.get(words[1]);
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException | RuntimeException unreadable) {
            return unknown("the broker's properties file " + file + " could not be read: " + unreadable);
        }
        for (int i = 2; i < words.length; i++) {
            if (words[i].equals(OVERRIDE) && i + 1 < words.length) {
                String[] pair = words[++i].split("=", 2);
                if (pair.length == 2) {
                    properties.setProperty(pair[0].trim(), pair[1].trim());
                }
            }
        }
        return fromProperties(properties, file.toString());
    }

    /** From the broker's properties; a value that is not a whole number is reported, and the key left unknown. */
    static BrokerSocketSettings fromProperties(Properties properties, String source) {
        Map<String, Integer> values = new LinkedHashMap<>();
        Map<String, Boolean> defaulted = new LinkedHashMap<>();
        StringBuilder unreadable = new StringBuilder();
        DEFAULTS.forEach((key, fallback) -> {
            String written = properties.getProperty(key);
            if (written == null) {
                values.put(key, fallback);
                defaulted.put(key, true);
                return;
            }
            try {
                values.put(key, Integer.parseInt(written.trim()));
                defaulted.put(key, false);
            } catch (NumberFormatException notANumber) {
                unreadable.append(unreadable.length() == 0 ? "" : ", ").append(key);
            }
        });
        return new BrokerSocketSettings(
                values,
                defaulted,
                source + (unreadable.length() == 0 ? "" : "; not whole numbers, so unknown: " + unreadable));
    }

    public OptionalInt get(String key) {
        Integer value = values.get(key);
        return value == null ? OptionalInt.empty() : OptionalInt.of(value);
    }

    public boolean known() {
        return !values.isEmpty();
    }

    /**
     * The settings of this broker that apply to a connection, as a JSON object for /connections, or
     * "" where none does or nothing is known: a client's connection to one of its listeners got the
     * listener's socket settings (Kafka reads them broker-wide, so one object serves every listener);
     * its own replica fetcher's connection runs with the replica keys. Each key gives its value and
     * whether the file left it at Kafka's default; only these numbers are read from the file, so no
     * secret of it can appear.
     */
    public String jsonFor(ConnectionIdentity connection) {
        if (connection.role() == Role.BROKER) {
            // only a Kafka listener's: a socket accepted on another port (JMX's RMI, say) is not Kafka's to size
            return connection.listener().isPresent() ? listenerJson : "";
        }
        return ClientKind.followerBrokerId(connection.clientId().orElse(null)).isPresent() ? replicaFetcherJson : "";
    }

    private String json(List<String> keys) {
        if (values.isEmpty()) {
            return "";
        }
        StringBuilder json = new StringBuilder("{\"source\":");
        JsonText.string(json, source.length() <= MAX_SOURCE_CHARS ? source : source.substring(0, MAX_SOURCE_CHARS));
        for (String key : keys) {
            Integer value = values.get(key);
            if (value == null) {
                continue; // not a whole number in the file: unknown, as the source says
            }
            json.append(',');
            JsonText.string(json, key);
            json.append(":{\"value\":")
                    .append(value)
                    .append(",\"default\":")
                    .append(defaulted.get(key))
                    .append('}');
        }
        return json.append('}').toString();
    }

    /** For the startup line and /connections: each key and value, "(default)" where the file left it. */
    public String describe() {
        if (values.isEmpty()) {
            return "the broker's socket settings are unknown (" + source + ")";
        }
        StringBuilder text = new StringBuilder("the broker's socket settings (" + source + "):");
        values.forEach((key, value) ->
                text.append(' ').append(key).append('=').append(value).append(defaulted.get(key) ? " (default)" : ""));
        return text.toString();
    }
}
