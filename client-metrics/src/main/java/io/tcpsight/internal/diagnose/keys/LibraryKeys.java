package io.tcpsight.internal.diagnose.keys;

import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ClientLibrary;
import java.util.List;

/**
 * The keys of the client libraries other than the Java client, for a setting given by its Java
 * key: one type per library ({@link LibrdkafkaKeys}, {@link KafkaPythonKeys}, {@link FranzGoKeys},
 * {@link SaramaKeys}, {@link KafkaJsKeys}, {@link KafkaGoKeys}), each spelling taken from the
 * library's own source, cited beside it. Where a library has no such setting the remedy says so
 * and what to do instead.
 */
public final class LibraryKeys {
    private LibraryKeys() {}

    /**
     * As {@link #spell}, where the client's own value is known to be below the one named (the doctor
     * read its file): the keys {@link #spell} leaves out because the library's default already holds
     * the value (librdkafka's 1,000,000-byte batch and million in flight, kgo's 1,000,012-byte
     * batch) are named, since the client's config set them lower.
     */
    public static List<Setting> spellAboveConfigured(
            ClientLibrary library, String software, String javaKey, String value) {
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
    public static List<Setting> spell(ClientLibrary library, String software, String javaKey, String value) {
        switch (library) {
            case LIBRDKAFKA:
                return LibrdkafkaKeys.spell(javaKey, value);
            case KAFKA_PYTHON:
                return KafkaPythonKeys.spell(ClientLibrary.majorVersion(software), javaKey, value);
            case FRANZ_GO:
                return FranzGoKeys.spell(javaKey, value);
            case SARAMA:
                return SaramaKeys.spell(javaKey, value);
            case KAFKAJS:
                return KafkaJsKeys.spell(javaKey, value);
            case KAFKA_GO:
                return KafkaGoKeys.spell(javaKey, value);
            default:
                throw new IllegalArgumentException("not a library of this table: " + library);
        }
    }
}
