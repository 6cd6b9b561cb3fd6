package io.tcpsight.agent;

import io.tcpsight.agent.internal.http.EndpointAccess;
import io.tcpsight.internal.config.InvalidSettingException;
import io.tcpsight.internal.config.SettingKey;
import io.tcpsight.internal.config.TcpsightConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's arguments, in the jmx_exporter spirit:
 * {@code -javaagent:tcpsight-broker-agent-<version>.jar=port=9464,host=127.0.0.1,interval=10s} or
 * {@code config=/path/tcpsight.properties}. Keys are the shared tcpsight keys without their
 * prefix, plus the agent's own. Anything unknown or malformed is an {@link InvalidSettingException}.
 */
final class AgentSettings {
    static final String PORT = "port";
    static final String HOST = "host";
    static final String INTERVAL = "interval";
    static final String CONGESTION = "congestion";
    static final String CONFIG = "config";
    static final String CONNECT_RATE = "connect.rate";
    static final String CONNECT_BURST = "connect.burst";
    static final String CONNECT_MAX_WAIT = "connect.max.wait";
    static final String LISTEN_BACKLOG = "listen.backlog";
    /** Named as the agent's arguments write it. Off (0) unless set: it is a write on Kafka's sockets. */
    private static final SettingKey<Long> LISTEN_BACKLOG_KEY = SettingKey.wholeNumber(
            LISTEN_BACKLOG,
            0,
            1,
            65_535,
            "the listen backlog Kafka's listeners get at run time, capped by net.core.somaxconn",
            "leave it out to keep Kafka's socket.listen.backlog.size");

    static final long DEFAULT_CONNECT_BURST = 2;
    /** Named as the agent's arguments write them (no tcpsight. prefix), so errors name what the user wrote. */
    private static final SettingKey<Double> CONNECT_RATE_KEY = SettingKey.decimal(
            CONNECT_RATE,
            0,
            0.1,
            100_000,
            "client connects per second across the JVM",
            "leave it out to turn connect pacing off");

    private static final SettingKey<Long> CONNECT_BURST_KEY = SettingKey.wholeNumber(
            CONNECT_BURST,
            DEFAULT_CONNECT_BURST,
            1,
            100_000,
            "connects that may go back to back",
            "only with connect.rate");
    static final long DEFAULT_CONNECT_MAX_WAIT_MS = 5000;
    private static final Pattern DURATION = Pattern.compile("^(\\d+)(ms|s|m)$");
    private static final Pattern ALGORITHM = Pattern.compile("^[a-z][a-z0-9_]{0,14}$");

    final int port;
    final String host;
    final String congestion;
    final TcpsightConfig config;
    /** Client connects per second across the JVM; 0 when connect pacing is off (the default). */
    final double connectRate;

    final long connectBurst;
    final long connectMaxWaitMillis;
    /** The backlog Kafka's listeners get at run time; 0 when off (the default). */
    final int listenBacklog;
    /** TLS, authentication, allowlist and redaction of the HTTP endpoint; all off unless set. */
    final EndpointAccess access;

    private AgentSettings(
            int port,
            String host,
            String congestion,
            TcpsightConfig config,
            double connectRate,
            long connectBurst,
            long connectMaxWaitMillis,
            int listenBacklog,
            EndpointAccess access) {
        this.port = port;
        this.host = host;
        this.congestion = congestion;
        this.config = config;
        this.connectRate = connectRate;
        this.connectBurst = connectBurst;
        this.connectMaxWaitMillis = connectMaxWaitMillis;
        this.listenBacklog = listenBacklog;
        this.access = access;
    }

    static List<String> allowedKeys() {
        List<String> keys = new ArrayList<>(List.of(
                PORT,
                HOST,
                INTERVAL,
                CONGESTION,
                CONNECT_RATE,
                CONNECT_BURST,
                CONNECT_MAX_WAIT,
                LISTEN_BACKLOG,
                CONFIG));
        keys.addAll(EndpointAccess.KEYS);
        for (SettingKey<?> key : TcpsightConfig.KEYS) {
            keys.add(key.shortName());
        }
        return keys;
    }

    static AgentSettings parse(String arguments) {
        Map<String, String> values = withoutPrefix(pairs(arguments));
        if (values.containsKey(CONFIG)) {
            Map<String, String> fromFile = withoutPrefix(readFile(values.remove(CONFIG)));
            fromFile.putAll(values); // arguments win over the file
            values = fromFile;
        }
        return of(values, true, EndpointAccess::from);
    }

    /**
     * The arguments judged as {@link #parse} judges them, without reading a file: {@code tcpsight
     * attach} checks them before it touches the JVM. The files they name (config= and the endpoint's
     * key and secret files) are read by the agent in that JVM, whose working directory and file
     * system (a container's) they are named for; with config=, the keys that must come with another
     * key the file may hold (connect.burst with connect.rate, the TLS key files' pairs) are left to
     * the agent too.
     *
     * @throws InvalidSettingException naming the key, its value (masked when secret) and what is allowed
     */
    static void check(String arguments) {
        Map<String, String> values = withoutPrefix(pairs(arguments));
        boolean whole = values.remove(CONFIG) == null;
        of(values, whole, settings -> {
            EndpointAccess.check(settings, whole);
            return EndpointAccess.OPEN;
        });
    }

    /**
     * The settings from the arguments' values (the config file's merged in); {@code whole} when they
     * are all the keys there are, so that a key that needs another can be judged.
     */
    private static AgentSettings of(
            Map<String, String> values, boolean whole, Function<Map<String, String>, EndpointAccess> access) {
        // in this order, so that of several bad values the same one is named each time
        Map<String, Object> shared = sharedSettings(values);
        int port = port(values);
        String host = host(values);
        String congestion = congestion(values);
        double connectRate = values.containsKey(CONNECT_RATE) ? CONNECT_RATE_KEY.parse(values.get(CONNECT_RATE)) : 0;
        long connectBurst = CONNECT_BURST_KEY.parse(values.get(CONNECT_BURST));
        long connectMaxWait = connectMaxWait(values, connectRate, whole);
        return new AgentSettings(
                port,
                host,
                congestion,
                TcpsightConfig.from(shared),
                connectRate,
                connectBurst,
                connectMaxWait,
                LISTEN_BACKLOG_KEY.parse(values.get(LISTEN_BACKLOG)).intValue(),
                access.apply(values));
    }

    /** The arguments' key=value pairs, in order. */
    private static Map<String, String> pairs(String arguments) {
        Map<String, String> values = new LinkedHashMap<>();
        if (arguments == null || arguments.trim().isEmpty()) {
            return values;
        }
        for (String pair : arguments.split(",")) {
            int equals = pair.indexOf('=');
            if (equals <= 0) {
                // jcmd's JVMTI.agent_load splits an unquoted option at '=' and passes the key alone
                throw new InvalidSettingException(
                        "agent argument",
                        pair,
                        "key=value pairs separated by commas, e.g. port=9464,host=127.0.0.1; from jcmd, quote"
                                + " them so that jcmd passes them whole: jcmd <pid> JVMTI.agent_load <agent.jar>"
                                + " '\"port=9464,interval=10s\"'");
            }
            values.put(
                    pair.substring(0, equals).trim(), pair.substring(equals + 1).trim());
        }
        return values;
    }

    /** The shared tcpsight.* settings among the agent's, once every key is known to be the agent's. */
    private static Map<String, Object> sharedSettings(Map<String, String> values) {
        List<String> allowed = allowedKeys();
        Map<String, Object> shared = new HashMap<>();
        for (Map.Entry<String, String> entry : values.entrySet()) {
            String key = entry.getKey();
            if (!allowed.contains(key)) {
                throw new InvalidSettingException(
                        entry.getKey(),
                        entry.getValue(),
                        "not a tcpsight agent setting; allowed: " + String.join(", ", allowed));
            }
            if (TcpsightConfig.key("tcpsight." + key).isPresent()) {
                shared.put("tcpsight." + key, entry.getValue());
            }
        }
        String interval = values.get(INTERVAL);
        if (interval != null) {
            shared.put(TcpsightConfig.SAMPLE_INTERVAL_MS.name(), Long.toString(durationMillis(INTERVAL, interval)));
        }
        return shared;
    }

    private static int port(Map<String, String> values) {
        if (!values.containsKey(PORT)) {
            return 9464;
        }
        int port;
        try {
            port = Integer.parseInt(values.get(PORT));
        } catch (NumberFormatException notANumber) {
            port = -1;
        }
        if (port < 0 || port > 65535) {
            throw new InvalidSettingException(
                    PORT, values.get(PORT), "a TCP port from 0 to 65535 (0 turns the HTTP endpoint off)");
        }
        return port;
    }

    private static String host(Map<String, String> values) {
        String host = values.getOrDefault(HOST, "127.0.0.1");
        if (host.isEmpty()) {
            throw new InvalidSettingException(
                    HOST, host, "an address to bind the HTTP endpoint to, e.g. 127.0.0.1 (the default) or 0.0.0.0");
        }
        return host;
    }

    /** The congestion control for accepted sockets; null when not asked for (they are left alone). */
    private static String congestion(Map<String, String> values) {
        String congestion = values.get(CONGESTION);
        if (congestion != null && !ALGORITHM.matcher(congestion).matches()) {
            throw new InvalidSettingException(CONGESTION, congestion, "a congestion control name such as bbr or cubic");
        }
        return congestion;
    }

    private static long connectMaxWait(Map<String, String> values, double connectRate, boolean whole) {
        long connectMaxWait = values.containsKey(CONNECT_MAX_WAIT)
                ? durationMillis(CONNECT_MAX_WAIT, values.get(CONNECT_MAX_WAIT))
                : DEFAULT_CONNECT_MAX_WAIT_MS;
        if (connectMaxWait > 60_000) {
            throw new InvalidSettingException(
                    CONNECT_MAX_WAIT,
                    values.get(CONNECT_MAX_WAIT),
                    "at most 60s: the wait blocks the connecting client's thread");
        }
        if (whole && (values.containsKey(CONNECT_BURST) || values.containsKey(CONNECT_MAX_WAIT)) && connectRate == 0) {
            String key = values.containsKey(CONNECT_BURST) ? CONNECT_BURST : CONNECT_MAX_WAIT;
            throw new InvalidSettingException(
                    key, values.get(key), "only together with connect.rate, which turns connect pacing on");
        }
        return connectMaxWait;
    }

    /**
     * The same keys with or without "tcpsight." (port and tcpsight.port are one setting, as in a
     * worker config); both forms of one key at once is refused by name.
     */
    private static Map<String, String> withoutPrefix(Map<String, String> values) {
        Map<String, String> plain = new LinkedHashMap<>();
        for (Map.Entry<String, String> entry : values.entrySet()) {
            String key = entry.getKey().startsWith("tcpsight.")
                    ? entry.getKey().substring("tcpsight.".length())
                    : entry.getKey();
            if (plain.containsKey(key)) {
                throw new InvalidSettingException(
                        entry.getKey(),
                        entry.getValue(),
                        "given twice, as " + key + " and tcpsight." + key + ": keep one");
            }
            plain.put(key, entry.getValue());
        }
        return plain;
    }

    static long durationMillis(String key, String text) {
        Matcher matcher = DURATION.matcher(text);
        if (!matcher.matches()) {
            throw new InvalidSettingException(key, text, "a duration such as 500ms, 10s or 1m");
        }
        String unit = matcher.group(2);
        try {
            long amount = Long.parseLong(matcher.group(1));
            return Math.multiplyExact(amount, unit.equals("ms") ? 1 : unit.equals("s") ? 1000 : 60_000);
        } catch (NumberFormatException | ArithmeticException tooLarge) {
            // Checked here: a product that wrapped around would pass any later range check.
            throw new InvalidSettingException(key, text, "a duration of at most " + Long.MAX_VALUE + " ms");
        }
    }

    private static Map<String, String> readFile(String path) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(Paths.get(path), StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException unreadable) {
            throw new InvalidSettingException(CONFIG, path, "a readable properties file (" + unreadable + ")");
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (String name : properties.stringPropertyNames()) {
            values.put(name, properties.getProperty(name));
        }
        return values;
    }
}
