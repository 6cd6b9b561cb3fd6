package io.tcpsight.doctor;

import io.tcpsight.internal.model.ClientLibrary;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A client library's own config file, read into the Java keys the doctor measures and judges with
 * (docs/doctor.md). librdkafka's is its {@code .conf} (key=value, as kcat's {@code -F} reads);
 * kafka-python's and franz-go's are a key=value form the docs give: kafka-python's keyword
 * arguments, franz-go's {@code kgo} option names. Each key the doctor reads is translated with its
 * meaning (librdkafka's {@code socket.receive.buffer.bytes=0} is the kernel's autotuning, Java's
 * {@code -1}); every other key is named as not read, never dropped in silence. Keys a config does
 * not set take the library's own defaults, not Java's: a librdkafka producer's batch is 1,000,000
 * bytes where Java's is 16,384.
 */
final class LibraryConfigFile {
    private LibraryConfigFile() {}

    /**
     * The file read: the Java keys it sets, the names of the keys the doctor does not read, and how
     * many lines it could not take for a key at all (never printed: they may be key material).
     */
    static final class Read {
        private final Properties javaKeys;
        private final SortedSet<String> notRead;
        private final int unnamed;

        Read(Properties javaKeys, SortedSet<String> notRead, int unnamed) {
            this.javaKeys = javaKeys;
            this.notRead = notRead;
            this.unnamed = unnamed;
        }

        Properties javaKeys() {
            return javaKeys;
        }

        /** The names of the keys not read, sorted; never their values. */
        SortedSet<String> notRead() {
            return notRead;
        }

        /** Lines that are no key of any library's form (a stray PEM block, say), counted and never named. */
        int unnamed() {
            return unnamed;
        }
    }

    /** What a key of any of these libraries' forms looks like. */
    private static final Pattern KEY = Pattern.compile("[A-Za-z][A-Za-z0-9._-]{0,127}");

    private static final UnaryOperator<String> SAME = value -> value;
    /** librdkafka's 0 for a socket buffer leaves it to the kernel: Java's -1. */
    private static final UnaryOperator<String> ZERO_IS_AUTOTUNE =
            value -> value.trim().equals("0") ? "-1" : value;

    private static final Pattern SOCKET_OPTION =
            Pattern.compile("socket\\.(SO_RCVBUF|SO_SNDBUF)\\s*,\\s*(\\d+)\\s*\\)");

    /**
     * The keys the doctor reads in each library's file, by the library's name, with the Java key
     * each is and how its value reads (librdkafka CONFIGURATION.md; kafka-python's KafkaProducer and
     * KafkaConsumer DEFAULT_CONFIG; franz-go's kgo options, as LibraryKeys spells its remedies).
     */
    private static Map<String, Translation> keys(ClientLibrary library) {
        Map<String, Translation> keys = new LinkedHashMap<>();
        switch (library) {
            case LIBRDKAFKA:
                keys.put("bootstrap.servers", new Translation("bootstrap.servers", SAME));
                keys.put("metadata.broker.list", new Translation("bootstrap.servers", SAME));
                keys.put("client.id", new Translation("client.id", SAME));
                keys.put("group.id", new Translation("group.id", SAME));
                keys.put("socket.receive.buffer.bytes", new Translation("receive.buffer.bytes", ZERO_IS_AUTOTUNE));
                keys.put("socket.send.buffer.bytes", new Translation("send.buffer.bytes", ZERO_IS_AUTOTUNE));
                keys.put("fetch.max.bytes", new Translation("fetch.max.bytes", SAME));
                keys.put("max.partition.fetch.bytes", new Translation("max.partition.fetch.bytes", SAME));
                keys.put("fetch.wait.max.ms", new Translation("fetch.max.wait.ms", SAME));
                keys.put("fetch.min.bytes", new Translation("fetch.min.bytes", SAME));
                keys.put("batch.size", new Translation("batch.size", SAME));
                keys.put("linger.ms", new Translation("linger.ms", LibraryConfigFile::wholeMillis));
                keys.put("queue.buffering.max.ms", new Translation("linger.ms", LibraryConfigFile::wholeMillis));
                keys.put("message.max.bytes", new Translation("max.request.size", SAME));
                keys.put(
                        "max.in.flight.requests.per.connection",
                        new Translation("max.in.flight.requests.per.connection", SAME));
                keys.put("max.in.flight", new Translation("max.in.flight.requests.per.connection", SAME));
                keys.put(
                        "queue.buffering.max.kbytes",
                        new Translation("buffer.memory", value -> Long.toString(Long.parseLong(value.trim()) * 1024)));
                keys.put("acks", new Translation("acks", LibraryConfigFile::acks));
                keys.put("request.required.acks", new Translation("acks", LibraryConfigFile::acks));
                keys.put("enable.idempotence", new Translation("enable.idempotence", SAME));
                keys.put("compression.type", new Translation("compression.type", SAME));
                keys.put("compression.codec", new Translation("compression.type", SAME));
                keys.put("security.protocol", new Translation("security.protocol", value -> value.trim()
                        .toUpperCase(Locale.ROOT)));
                keys.put("sasl.mechanisms", new Translation("sasl.mechanism", SAME));
                keys.put("sasl.mechanism", new Translation("sasl.mechanism", SAME));
                keys.put("sasl.username", new Translation(USERNAME, SAME));
                keys.put("sasl.password", new Translation(PASSWORD, SAME));
                keys.put("ssl.ca.location", new Translation("ssl.truststore.location", SAME));
                break;
            case KAFKA_PYTHON:
                keys.put("bootstrap_servers", new Translation("bootstrap.servers", SAME));
                keys.put("client_id", new Translation("client.id", SAME));
                keys.put("group_id", new Translation("group.id", SAME));
                keys.put("socket_options", new Translation(SOCKET_OPTIONS, SAME));
                keys.put("fetch_max_bytes", new Translation("fetch.max.bytes", SAME));
                keys.put("max_partition_fetch_bytes", new Translation("max.partition.fetch.bytes", SAME));
                keys.put("fetch_max_wait_ms", new Translation("fetch.max.wait.ms", SAME));
                keys.put("fetch_min_bytes", new Translation("fetch.min.bytes", SAME));
                keys.put("max_poll_records", new Translation("max.poll.records", SAME));
                keys.put("batch_size", new Translation("batch.size", SAME));
                keys.put("linger_ms", new Translation("linger.ms", SAME));
                keys.put("max_request_size", new Translation("max.request.size", SAME));
                keys.put("buffer_memory", new Translation("buffer.memory", SAME));
                keys.put(
                        "max_in_flight_requests_per_connection",
                        new Translation("max.in.flight.requests.per.connection", SAME));
                keys.put("acks", new Translation("acks", LibraryConfigFile::acks));
                keys.put("enable_idempotence", new Translation("enable.idempotence", LibraryConfigFile::bool));
                keys.put("compression_type", new Translation("compression.type", SAME));
                keys.put("security_protocol", new Translation("security.protocol", value -> value.trim()
                        .toUpperCase(Locale.ROOT)));
                keys.put("sasl_mechanism", new Translation("sasl.mechanism", SAME));
                keys.put("sasl_plain_username", new Translation(USERNAME, SAME));
                keys.put("sasl_plain_password", new Translation(PASSWORD, SAME));
                keys.put("ssl_cafile", new Translation("ssl.truststore.location", SAME));
                break;
            case FRANZ_GO:
                keys.put("kgo.SeedBrokers", new Translation("bootstrap.servers", SAME));
                keys.put("kgo.ClientID", new Translation("client.id", SAME));
                keys.put("kgo.ConsumerGroup", new Translation("group.id", SAME));
                keys.put("kgo.FetchMaxBytes", new Translation("fetch.max.bytes", SAME));
                keys.put("kgo.FetchMaxPartitionBytes", new Translation("max.partition.fetch.bytes", SAME));
                keys.put("kgo.FetchMaxWait", new Translation("fetch.max.wait.ms", LibraryConfigFile::millis));
                keys.put("kgo.FetchMinBytes", new Translation("fetch.min.bytes", SAME));
                keys.put("kgo.ProducerBatchMaxBytes", new Translation("batch.size", SAME));
                keys.put("kgo.ProducerLinger", new Translation("linger.ms", LibraryConfigFile::millis));
                keys.put("kgo.MaxBufferedBytes", new Translation("buffer.memory", SAME));
                keys.put("kgo.BrokerMaxWriteBytes", new Translation("max.request.size", SAME));
                keys.put(
                        "kgo.MaxProduceRequestsInflightPerBroker",
                        new Translation("max.in.flight.requests.per.connection", SAME));
                keys.put(
                        "kgo.DisableIdempotentWrite",
                        new Translation(
                                "enable.idempotence", value -> bool(value).equals("true") ? "false" : "true"));
                break;
            default:
                throw new IllegalArgumentException("no config file of its own is read for " + library.label());
        }
        return keys;
    }

    /** Where a library's file names a SASL user and password apart, Java's one JAAS line holds both. */
    private static final String USERNAME = "(sasl user)";

    private static final String PASSWORD = "(sasl password)";
    private static final String SOCKET_OPTIONS = "(socket options)";

    /** One key of a library's file: the Java key it is and how its value reads. */
    private static final class Translation {
        final String javaKey;
        final UnaryOperator<String> value;

        Translation(String javaKey, UnaryOperator<String> value) {
            this.javaKey = javaKey;
            this.value = value;
        }
    }

    /** Whether the doctor reads a file of this library's own (the others give Java keys). */
    static boolean readsOwnFile(ClientLibrary library) {
        return library == ClientLibrary.LIBRDKAFKA
                || library == ClientLibrary.KAFKA_PYTHON
                || library == ClientLibrary.FRANZ_GO;
    }

    /**
     * Reads the library's file into Java keys. tcpsight's own keys pass as they are. A value that
     * does not read (a franz-go duration, a number) is refused with the key, the value and what is
     * allowed.
     */
    static Read read(ClientLibrary library, Properties file) {
        Map<String, Translation> keys = keys(library);
        Properties java = new Properties();
        SortedSet<String> notRead = new TreeSet<>();
        int unnamed = 0;
        String user = null;
        String password = null;
        // librdkafka's message.max.bytes and max.in.flight serve a consumer too: read as a producer's keys only in
        // a file that is no consumer's (a librdkafka consumer that subscribes has a group.id)
        boolean consumersFile = library == ClientLibrary.LIBRDKAFKA && file.getProperty("group.id") != null;
        for (String key : new TreeSet<>(file.stringPropertyNames())) {
            String value = file.getProperty(key);
            if (!KEY.matcher(key).matches()) {
                unnamed++;
                continue;
            }
            if (key.startsWith("tcpsight.")
                    || (library == ClientLibrary.FRANZ_GO
                            && JAVA_SECURITY.matcher(key).matches())) {
                // franz-go's TLS and SASL are Go code, not options: its file gives them in Java's keys
                java.setProperty(key, value);
                continue;
            }
            Translation translation = keys.get(key);
            if (translation == null
                    || (consumersFile && (key.equals("message.max.bytes") || key.startsWith("max.in.flight")))) {
                notRead.add(key);
                continue;
            }
            String read;
            try {
                read = translation.value.apply(value);
            } catch (RuntimeException unreadable) {
                throw new IllegalArgumentException(
                        library.label() + " key " + key + "=" + value + " does not read: " + unreadable.getMessage());
            }
            switch (translation.javaKey) {
                case USERNAME:
                    user = read;
                    break;
                case PASSWORD:
                    password = read;
                    break;
                case SOCKET_OPTIONS:
                    if (!socketOptions(read, java)) {
                        notRead.add(key); // a form the doctor cannot take apart: named, not guessed
                    }
                    break;
                default:
                    java.setProperty(translation.javaKey, read);
                    if (translation.javaKey.equals("ssl.truststore.location")) {
                        java.setProperty("ssl.truststore.type", "PEM"); // librdkafka and kafka-python take PEM files
                    }
            }
        }
        if (user != null || password != null) {
            if (user == null || password == null) {
                throw new IllegalArgumentException(library.label() + " names a SASL "
                        + (user == null ? "password without a user" : "user without a password"));
            }
            String mechanism = java.getProperty("sasl.mechanism");
            if (mechanism == null) {
                // librdkafka's default mechanism is GSSAPI, which takes no password: say which one the user means
                throw new IllegalArgumentException(library.label()
                        + " names a SASL user and password but no mechanism; add "
                        + (library == ClientLibrary.LIBRDKAFKA ? "sasl.mechanisms" : "sasl_mechanism")
                        + " (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)");
            }
            java.setProperty("sasl.jaas.config", jaas(mechanism, user, password));
        }
        if (library == ClientLibrary.FRANZ_GO
                && file.getProperty("kgo.MaxProduceRequestsInflightPerBroker") != null
                && !"false".equals(java.getProperty("enable.idempotence"))) {
            throw new IllegalArgumentException("franz-go refuses kgo.MaxProduceRequestsInflightPerBroker with"
                    + " idempotent writes (its default): add kgo.DisableIdempotentWrite=true, or remove the option");
        }
        return new Read(java, notRead, unnamed);
    }

    /** The Java security keys a franz-go file may carry. */
    private static final Pattern JAVA_SECURITY = Pattern.compile("security\\.protocol|ssl\\..+|sasl\\..+");

    /**
     * The library's own values for what a producer's or a consumer's file does not set, so that the
     * doctor judges the client the file configures and not Java's defaults (librdkafka
     * CONFIGURATION.md, kafka-python DEFAULT_CONFIG, kgo's option docs).
     */
    static Properties withDefaults(ClientLibrary library, ClientRole role, Properties javaKeys) {
        Map<String, String> defaults = new LinkedHashMap<>();
        boolean idempotent;
        switch (library) {
            case LIBRDKAFKA:
                defaults.put("receive.buffer.bytes", "-1");
                defaults.put("send.buffer.bytes", "-1");
                if (role == ClientRole.PRODUCER) {
                    defaults.put("batch.size", "1000000");
                    defaults.put("linger.ms", "5");
                    defaults.put("max.request.size", "1000000");
                    // idempotence (or a transactional.id) caps librdkafka's requests in flight at 5 itself
                    idempotent = "true".equals(javaKeys.getProperty("enable.idempotence"))
                            || javaKeys.getProperty("transactional.id") != null;
                    defaults.put("max.in.flight.requests.per.connection", idempotent ? "5" : "1000000");
                    defaults.put("enable.idempotence", "false");
                    defaults.put("buffer.memory", Long.toString(1_048_576L * 1024));
                }
                break;
            case KAFKA_PYTHON:
                // kafka-python 3.x applies only socket_options to the socket: without them the kernel autotunes
                defaults.put("receive.buffer.bytes", "-1");
                defaults.put("send.buffer.bytes", "-1");
                if (role == ClientRole.PRODUCER) {
                    defaults.put("linger.ms", "0");
                    // 3.x: acks=all and idempotence unless the file sets acks otherwise or more than 5 in flight; an
                    // idempotent kafka-python producer sends one batch of a partition at a time
                    String acks = javaKeys.getProperty("acks", "all");
                    int inFlight = Integer.parseInt(javaKeys.getProperty("max.in.flight.requests.per.connection", "5")
                            .trim());
                    idempotent = javaKeys.getProperty("enable.idempotence") != null
                            ? "true".equals(javaKeys.getProperty("enable.idempotence"))
                            : acks.equals("all") && inFlight <= 5;
                    defaults.put("acks", "all");
                    defaults.put("enable.idempotence", Boolean.toString(idempotent));
                    if (idempotent) {
                        defaults.put("max.in.flight.requests.per.connection", "1");
                    }
                }
                break;
            case FRANZ_GO:
                // kgo sets no socket buffer: the kernel autotunes
                defaults.put("receive.buffer.bytes", "-1");
                defaults.put("send.buffer.bytes", "-1");
                if (role == ClientRole.PRODUCER) {
                    defaults.put("batch.size", "1000012");
                    // kgo caps a produce request at BrokerMaxWriteBytes (100 MiB), not at one batch
                    defaults.put("max.request.size", "104857600");
                    defaults.put("linger.ms", "10");
                    // without idempotent writes kgo keeps one produce request in flight a broker
                    if ("false".equals(javaKeys.getProperty("enable.idempotence"))) {
                        defaults.put("max.in.flight.requests.per.connection", "1");
                    }
                } else {
                    defaults.put("fetch.max.wait.ms", "5000");
                }
                break;
            default:
                return javaKeys;
        }
        Properties judged = new Properties();
        defaults.forEach(judged::setProperty);
        javaKeys.stringPropertyNames().forEach(key -> judged.setProperty(key, javaKeys.getProperty(key)));
        return judged;
    }

    /**
     * kafka-python's socket_options: the SO_RCVBUF and SO_SNDBUF it sets, the only way 3.x sizes a
     * socket. False where the value names a buffer in a form this cannot read (an expression, a
     * constant), so that the key is named as not read.
     */
    private static boolean socketOptions(String value, Properties java) {
        Matcher option = SOCKET_OPTION.matcher(value);
        int read = 0;
        while (option.find()) {
            java.setProperty(
                    option.group(1).equals("SO_RCVBUF") ? "receive.buffer.bytes" : "send.buffer.bytes",
                    option.group(2));
            read++;
        }
        int named = 0;
        Matcher buffers = Pattern.compile("SO_RCVBUF|SO_SNDBUF").matcher(value);
        while (buffers.find()) {
            named++;
        }
        return read == named;
    }

    /** librdkafka's linger takes a fraction of a millisecond: Java's whole milliseconds, rounded up. */
    private static String wholeMillis(String value) {
        return Long.toString((long) Math.ceil(Double.parseDouble(value.trim())));
    }

    private static String acks(String value) {
        String acks = value.trim();
        return acks.equals("-1") ? "all" : acks;
    }

    private static String bool(String value) {
        String bool = value.trim().toLowerCase(Locale.ROOT);
        if (!bool.equals("true") && !bool.equals("false")) {
            throw new IllegalArgumentException("allowed: true or false (Python's True and False too)");
        }
        return bool;
    }

    /** A Go duration as franz-go's options take it ("500ms", "1s", "10 * time.Millisecond"), in whole milliseconds. */
    private static String millis(String value) {
        String duration = value.trim().replace(" ", "");
        Matcher go = Pattern.compile("(\\d+)\\*time\\.(Millisecond|Second)").matcher(duration);
        if (go.matches()) {
            long amount = Long.parseLong(go.group(1));
            return Long.toString(go.group(2).equals("Second") ? amount * 1000 : amount);
        }
        Matcher plain = Pattern.compile("(\\d+)(ms|s)").matcher(duration);
        if (plain.matches()) {
            long amount = Long.parseLong(plain.group(1));
            return Long.toString(plain.group(2).equals("s") ? amount * 1000 : amount);
        }
        throw new IllegalArgumentException("allowed: a duration such as 500ms, 1s or 10 * time.Millisecond");
    }

    private static String jaas(String mechanism, String user, String password) {
        String module = mechanism.toUpperCase(Locale.ROOT).startsWith("SCRAM")
                ? "org.apache.kafka.common.security.scram.ScramLoginModule"
                : "org.apache.kafka.common.security.plain.PlainLoginModule";
        return module + " required username=\"" + jaasQuoted(user) + "\" password=\"" + jaasQuoted(password) + "\";";
    }

    private static String jaasQuoted(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
