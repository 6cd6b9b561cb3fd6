package io.tcpsight.lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Kafka client was built with, read from the {@code ProducerConfig values:} or
 * {@code ConsumerConfig values:} block that Kafka logs as it builds one: the client's own word,
 * not what a test asked for.
 */
public final class ClientConfigDump {
    private static final Pattern DUMP = Pattern.compile(
            "^(?:\\[([^]]+)] )?.*?\\b(Producer|Consumer)Config values:.*$((?:\\n\\t.*$)+)", Pattern.MULTILINE);
    private static final Pattern SETTING = Pattern.compile("^\\t([^ ]+) = (.*)$", Pattern.MULTILINE);

    /** The log line's time stamp, when it has one, which orders builds. */
    private final String loggedAt;

    private final Map<String, String> settings;

    private ClientConfigDump(String loggedAt, Map<String, String> settings) {
        this.loggedAt = loggedAt;
        this.settings = settings;
    }

    /** Every dump of the client type ("Producer" or "Consumer") in the output, in order. */
    public static List<ClientConfigDump> all(String output, String type) {
        List<ClientConfigDump> dumps = new ArrayList<>();
        Matcher dump = DUMP.matcher(output);
        while (dump.find()) {
            if (dump.group(2).equals(type)) {
                Map<String, String> settings = new LinkedHashMap<>();
                Matcher line = SETTING.matcher(dump.group(3));
                while (line.find()) {
                    settings.put(line.group(1), line.group(2).trim());
                }
                dumps.add(new ClientConfigDump(dump.group(1) == null ? "" : dump.group(1), settings));
            }
        }
        return dumps;
    }

    /** The latest build of the client with this client.id. */
    public static Optional<ClientConfigDump> latest(String output, String type, String clientId) {
        ClientConfigDump found = null;
        for (ClientConfigDump dump : all(output, type)) {
            if (clientId.equals(dump.get("client.id"))) {
                found = dump;
            }
        }
        return Optional.ofNullable(found);
    }

    /** The value as logged; null when the dump has no such key. */
    public String get(String key) {
        return settings.get(key);
    }

    /** The named keys and their values, in the order given. */
    public Map<String, String> values(String... keys) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String key : keys) {
            values.put(key, settings.get(key));
        }
        return values;
    }

    public String loggedAt() {
        return loggedAt;
    }
}
