package io.tcpsight.agent.internal.naming;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
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

    private final Map<String, Integer> values;
    private final Map<String, Boolean> defaulted;
    private final String source;

    private BrokerSocketSettings(Map<String, Integer> values, Map<String, Boolean> defaulted, String source) {
        this.values = values;
        this.defaulted = defaulted;
        this.source = source;
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
