package io.tcpsight.internal.diagnose.keys;

import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ClientLibrary;
import java.util.List;

/** segmentio/kafka-go's keys for the Java keys a remedy names ({@link LibraryKeys}). */
final class KafkaGoKeys {
    private KafkaGoKeys() {}

    /**
     * segmentio/kafka-go, ReaderConfig (reader.go): MaxBytes (default 1e6) bounds a fetch, and a Reader
     * reads one partition per fetch. Its Dialer (dialer.go) sets no socket buffer.
     */
    static List<Setting> spell(String javaKey, String value) {
        String library = ClientLibrary.KAFKA_GO.label();
        switch (javaKey) {
            case "receive.buffer.bytes":
            case "send.buffer.bytes":
                return List.of(LibrarySettings.dialer(library, "ReaderConfig.Dialer", javaKey, value));
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
}
