package io.tcpsight.internal.diagnose.keys;

import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ClientLibrary;
import java.util.List;
import java.util.Map;

/** librdkafka's keys for the Java keys a remedy names ({@link LibraryKeys}). */
final class LibrdkafkaKeys {
    private LibrdkafkaKeys() {}

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
    static List<Setting> spell(String javaKey, String value) {
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
}
