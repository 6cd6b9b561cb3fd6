package io.tcpsight.internal.diagnose;

import io.tcpsight.internal.model.ClientLibrary;
import java.util.List;
import java.util.Map;

/**
 * The keys of the client libraries other than the Java client, for a setting given by its Java
 * key. Each spelling is taken from the library's own source, cited beside it. Where a
 * library has no such setting the remedy says so and what to do instead.
 */
final class LibraryKeys {
    private LibraryKeys() {}

    /** librdkafka's names for the Java keys, and its defaults (CONFIGURATION.md); max.poll.records has no counterpart. */
    private static final Map<String, String> LIBRDKAFKA_KEYS = Map.of(
            "receive.buffer.bytes", "socket.receive.buffer.bytes",
            "send.buffer.bytes", "socket.send.buffer.bytes",
            "fetch.max.bytes", "fetch.max.bytes",
            "max.partition.fetch.bytes", "max.partition.fetch.bytes",
            "batch.size", "batch.size",
            "linger.ms", "linger.ms",
            "max.request.size", "message.max.bytes");

    private static final Map<String, String> LIBRDKAFKA_DEFAULTS = Map.of(
            "socket.receive.buffer.bytes", "0",
            "socket.send.buffer.bytes", "0",
            "fetch.max.bytes", "52428800",
            "max.partition.fetch.bytes", "1048576",
            "batch.size", "1000000",
            "linger.ms", "5",
            "message.max.bytes", "1000000");

    /** librdkafka (CONFIGURATION.md); it has no max.poll.records: it hands out records one at a time from its prefetch queue. */
    private static List<Setting> librdkafka(String javaKey, String value) {
        if (javaKey.equals("buffer.memory")) {
            // queue.buffering.max.kbytes counts KiB (default 1048576, 1 GiB): far above any buffer.memory given
            return List.of();
        }
        if (javaKey.equals("batch.size") && Long.parseLong(value) <= 1_000_000) {
            return List
                    .of(); // each librdkafka request carries one partition's MessageSet of up to 1000000 bytes already
        }
        if (javaKey.equals("max.in.flight.requests.per.connection")) {
            return List.of(); // 1000000 by default; idempotence caps it at 5 itself
        }
        String key = LIBRDKAFKA_KEYS.get(javaKey);
        if (key == null) {
            return List.of();
        }
        String spelled = Setting.AUTOTUNE.equals(value) ? "0" : value; // 0: librdkafka leaves the buffer to the kernel
        return List.of(Setting.client(ClientLibrary.LIBRDKAFKA.label(), key, spelled)
                .notedWhenDefault(LIBRDKAFKA_DEFAULTS.get(key), "librdkafka's"));
    }

    /**
     * As {@link #spell}, where the client's own value is known to be below the one named (the doctor
     * read its file): the keys {@link #spell} leaves out because the library's default already holds
     * the value (librdkafka's 1,000,000-byte batch and million in flight, kgo's 1,000,012-byte
     * batch) are named, since the client's config set them lower.
     */
    static List<Setting> spellAboveConfigured(ClientLibrary library, String software, String javaKey, String value) {
        if (library == ClientLibrary.LIBRDKAFKA) {
            String rdkafka = ClientLibrary.LIBRDKAFKA.label();
            switch (javaKey) {
                case "batch.size":
                    return List.of(Setting.client(rdkafka, "batch.size", value));
                case "max.in.flight.requests.per.connection":
                    return List.of(Setting.client(rdkafka, "max.in.flight", value));
                case "buffer.memory":
                    // queue.buffering.max.kbytes counts KiB: rounded up, never below the bytes named
                    return List.of(Setting.client(
                            rdkafka,
                            "queue.buffering.max.kbytes",
                            Long.toString((Long.parseLong(value) + 1023) / 1024)));
                default:
                    break;
            }
        }
        if (library == ClientLibrary.FRANZ_GO && javaKey.equals("batch.size")) {
            return List.of(Setting.client(ClientLibrary.FRANZ_GO.label(), "kgo.ProducerBatchMaxBytes", value));
        }
        return spell(library, software, javaKey, value);
    }

    /** The library's setting for this Java key and value; empty when nothing in it corresponds. */
    static List<Setting> spell(ClientLibrary library, String software, String javaKey, String value) {
        switch (library) {
            case LIBRDKAFKA:
                return librdkafka(javaKey, value);
            case KAFKA_PYTHON:
                return kafkaPython(ClientLibrary.majorVersion(software), javaKey, value);
            case FRANZ_GO:
                return franzGo(javaKey, value);
            case SARAMA:
                return sarama(javaKey, value);
            case KAFKAJS:
                return kafkaJs(javaKey, value);
            case KAFKA_GO:
                return kafkaGo(javaKey, value);
            default:
                throw new IllegalArgumentException("not a library of this table: " + library);
        }
    }

    /**
     * kafka-python, KafkaConsumer and KafkaProducer keyword arguments (kafka/consumer/group.py,
     * kafka/producer/kafka.py DEFAULT_CONFIG). In 2.x kafka/conn.py appends receive_buffer_bytes and
     * send_buffer_bytes to socket_options as SO_RCVBUF and SO_SNDBUF; 3.x does not apply them (measured
     * with kafka-python 3.0.12): only socket_options reaches the socket.
     */
    private static List<Setting> kafkaPython(int major, String javaKey, String value) {
        String library = ClientLibrary.KAFKA_PYTHON.label();
        switch (javaKey) {
            case "receive.buffer.bytes":
            case "send.buffer.bytes":
                boolean receive = javaKey.startsWith("receive");
                String option = receive ? "SO_RCVBUF" : "SO_SNDBUF";
                if (major >= 3) {
                    return List.of(Setting.client(
                                    library,
                                    "socket_options",
                                    Setting.AUTOTUNE.equals(value)
                                            ? "no (socket.SOL_SOCKET, socket." + option + ", n) entry"
                                            : "[(socket.SOL_SOCKET, socket." + option + ", " + value + ")]")
                            .withNote("kafka-python 3.x applies socket_options only; "
                                    + (receive ? "receive_buffer_bytes" : "send_buffer_bytes")
                                    + " does not reach the socket"));
                }
                String key = receive ? "receive_buffer_bytes" : "send_buffer_bytes";
                return List.of(
                        Setting.AUTOTUNE.equals(value)
                                ? Setting.client(library, key, "None")
                                        .withNote("kafka-python's default: remove the explicit setting, and any "
                                                + option + " in socket_options; on 3.x only socket_options counts")
                                : Setting.client(library, key, value)
                                        .withNote("on kafka-python 3.x set socket_options=[(socket.SOL_SOCKET, socket."
                                                + option + ", " + value + ")] instead"));
            case "fetch.max.bytes":
                return List.of(defaulted(library, "fetch_max_bytes", value, "52428800", "kafka-python's"));
            case "max.partition.fetch.bytes":
                return List.of(defaulted(library, "max_partition_fetch_bytes", value, "1048576", "kafka-python's"));
            case "max.poll.records":
                return List.of(defaulted(library, "max_poll_records", value, "500", "kafka-python's"));
            case "batch.size":
                return List.of(defaulted(library, "batch_size", value, "16384", "kafka-python's"));
            case "linger.ms":
                return List.of(defaulted(library, "linger_ms", value, "0", "kafka-python's"));
            case "max.request.size":
                return List.of(defaulted(library, "max_request_size", value, "1048576", "kafka-python's"));
            case "buffer.memory":
                return List.of(defaulted(library, "buffer_memory", value, "33554432", "kafka-python's"));
            case "max.in.flight.requests.per.connection":
                return List.of(
                        defaulted(library, "max_in_flight_requests_per_connection", value, "5", "kafka-python's"));
            default:
                return List.of();
        }
    }

    /**
     * franz-go, kgo options (pkg/kgo/config.go): FetchMaxBytes (default 50 MiB), FetchMaxPartitionBytes,
     * PollRecords' argument. kgo sets no socket buffer: its default dialer leaves it to the kernel, and
     * kgo.Dialer takes a dialer whose Control can set one.
     */
    private static List<Setting> franzGo(String javaKey, String value) {
        String library = ClientLibrary.FRANZ_GO.label();
        switch (javaKey) {
            case "receive.buffer.bytes":
            case "send.buffer.bytes":
                return List.of(dialer(library, "kgo.Dialer", javaKey, value));
            case "fetch.max.bytes":
                return List.of(defaulted(library, "kgo.FetchMaxBytes", value, "52428800", "kgo's"));
            case "max.partition.fetch.bytes":
                return List.of(Setting.client(library, "kgo.FetchMaxPartitionBytes", value));
            case "max.poll.records":
                return List.of(Setting.client(library, "client.PollRecords(ctx, n)", value)
                        .withNote("the n of each PollRecords call; PollFetches takes all that is buffered"));
            case "batch.size":
                return Long.parseLong(value) <= 1_000_012
                        ? List.of() // kgo's ProducerBatchMaxBytes default is 1000012 already
                        : List.of(Setting.client(library, "kgo.ProducerBatchMaxBytes", value));
            case "linger.ms":
                return List.of(Setting.client(library, "kgo.ProducerLinger", value + " * time.Millisecond")
                        .withNote("kgo's default is 10 ms since v1.20.0, 0 before"));
            case "buffer.memory":
                return List.of(Setting.client(library, "kgo.MaxBufferedBytes", value)
                        .withNote("kgo buffers at most MaxBufferedRecords (10000) records by default: raise it too"
                                + " where records are small"));
            default:
                return List.of();
        }
    }

    /**
     * IBM/sarama, Config (config.go): Consumer.Fetch.Default is the bytes per partition (default 1 MiB),
     * Consumer.Fetch.Max the bytes of a whole fetch (default 0, no limit). Config.Net has no socket
     * buffer: the kernel autotunes.
     */
    private static List<Setting> sarama(String javaKey, String value) {
        String library = ClientLibrary.SARAMA.label();
        switch (javaKey) {
            case "receive.buffer.bytes":
            case "send.buffer.bytes":
                return List.of(noBuffer(library, "Config.Net", javaKey));
            case "fetch.max.bytes":
                return List.of(Setting.client(library, "Config.Consumer.Fetch.Max", value)
                        .withNote("sarama's default 0 sets no limit"));
            case "max.partition.fetch.bytes":
                return List.of(defaulted(library, "Config.Consumer.Fetch.Default", value, "1048576", "sarama's"));
            case "batch.size":
                return List.of(Setting.client(library, "Config.Producer.Flush.Bytes", value)
                        .withNote("sarama's default 0 sends whatever has gathered as soon as a request may go"));
            case "linger.ms":
                return List.of(
                        Setting.client(library, "Config.Producer.Flush.Frequency", value + " * time.Millisecond"));
            case "max.request.size":
                return List.of(defaulted(library, "Config.Producer.MaxMessageBytes", value, "1000000", "sarama's"));
            case "max.in.flight.requests.per.connection":
                return List.of(defaulted(library, "Config.Net.MaxOpenRequests", value, "5", "sarama's")
                        .withNote("with Config.Producer.Idempotent sarama requires 1"));
            default:
                return List.of(); // messages arrive on a channel: no records-per-poll limit
        }
    }

    /**
     * KafkaJS, kafka.consumer({...}) options (src/consumer/index.js): maxBytes (default 10485760),
     * maxBytesPerPartition (default 1048576). Node's sockets take no buffer size from KafkaJS: the
     * kernel autotunes (a socketFactory could set one).
     */
    private static List<Setting> kafkaJs(String javaKey, String value) {
        String library = ClientLibrary.KAFKAJS.label();
        switch (javaKey) {
            case "receive.buffer.bytes":
            case "send.buffer.bytes":
                return List.of(noBuffer(library, "socketFactory", javaKey));
            case "fetch.max.bytes":
                return List.of(defaulted(library, "maxBytes", value, "10485760", "KafkaJS's"));
            case "max.partition.fetch.bytes":
                return List.of(defaulted(library, "maxBytesPerPartition", value, "1048576", "KafkaJS's"));
            case "batch.size":
                return List.of(Setting.client(
                                library,
                                "producer.sendBatch()",
                                "records of about " + value
                                        + " bytes per partition in each call, several calls awaited together")
                        .withNote("KafkaJS has no batching of its own: each send() or sendBatch() is one request per"
                                + " leader"));
            default:
                return List.of(); // eachMessage/eachBatch: no records-per-poll limit; maxInFlightRequests is unlimited
        }
    }

    /**
     * segmentio/kafka-go, ReaderConfig (reader.go): MaxBytes (default 1e6) bounds a fetch, and a Reader
     * reads one partition per fetch. Its Dialer (dialer.go) sets no socket buffer.
     */
    private static List<Setting> kafkaGo(String javaKey, String value) {
        String library = ClientLibrary.KAFKA_GO.label();
        switch (javaKey) {
            case "receive.buffer.bytes":
            case "send.buffer.bytes":
                return List.of(dialer(library, "ReaderConfig.Dialer", javaKey, value));
            case "fetch.max.bytes":
            case "max.partition.fetch.bytes":
                return List.of(Setting.client(library, "ReaderConfig.MaxBytes", value)
                        .withNote("kafka-go's default is 1000000; one Reader fetches one partition"));
            case "batch.size":
                return List.of(Setting.client(library, "Writer.BatchBytes", value)
                        .withNote("and Writer.BatchSize (messages, default 100) at least this over the record size; a"
                                + " Writer has one request per partition in flight"));
            case "linger.ms":
                return List.of(Setting.client(library, "Writer.BatchTimeout", value + " * time.Millisecond")
                        .withNote("kafka-go's default is 1 s"));
            default:
                return List.of();
        }
    }

    private static Setting defaulted(String library, String key, String value, String libraryDefault, String whose) {
        return Setting.client(library, key, value).notedWhenDefault(libraryDefault, whose);
    }

    /** A Go library whose sockets come from a dialer: autotuned unless the dialer's Control sets a size. */
    private static Setting dialer(String library, String key, String javaKey, String value) {
        String option = javaKey.startsWith("receive") ? "SO_RCVBUF" : "SO_SNDBUF";
        return Setting.AUTOTUNE.equals(value)
                ? Setting.client(library, key, "the default dialer")
                        .withNote("no Control that sets " + option + ": the kernel then autotunes up to this host's "
                                + (option.equals("SO_RCVBUF") ? "net.ipv4.tcp_rmem" : "net.ipv4.tcp_wmem") + " max")
                : Setting.client(library, key, "a net.Dialer whose Control sets " + option + " to " + value);
    }

    /** A library that never sets a socket buffer: the kernel autotunes, up to the host's sysctl. */
    private static Setting noBuffer(String library, String where, String javaKey) {
        boolean receive = javaKey.startsWith("receive");
        return Setting.client(library, where, "no socket buffer setting")
                .withNote(library + " leaves " + (receive ? "SO_RCVBUF" : "SO_SNDBUF")
                        + " to the kernel, which autotunes up to the max of "
                        + (receive ? "net.ipv4.tcp_rmem" : "net.ipv4.tcp_wmem") + " on the client's host: raise that");
    }
}
