package io.tcpsight.internal.diagnose.keys;

import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ClientLibrary;
import java.util.List;

/** sarama's keys for the Java keys a remedy names ({@link LibraryKeys}). */
final class SaramaKeys {
    private SaramaKeys() {}

    /**
     * IBM/sarama, Config (config.go): Consumer.Fetch.Default is the bytes per partition (default 1 MiB),
     * Consumer.Fetch.Max the bytes of a whole fetch (default 0, no limit). Config.Net has no socket
     * buffer: the kernel autotunes.
     */
    static List<Setting> spell(String javaKey, String value) {
        String library = ClientLibrary.SARAMA.label();
        switch (javaKey) {
            case "receive.buffer.bytes":
            case "send.buffer.bytes":
                return List.of(LibrarySettings.noBuffer(library, "Config.Net", javaKey));
            case "fetch.max.bytes":
                return List.of(Setting.client(library, "Config.Consumer.Fetch.Max", value)
                        .withNote("sarama's default 0 sets no limit"));
            case "max.partition.fetch.bytes":
                return List.of(LibrarySettings.defaulted(
                        library, "Config.Consumer.Fetch.Default", value, "1048576", "sarama's"));
            case "batch.size":
                return List.of(Setting.client(library, "Config.Producer.Flush.Bytes", value)
                        .withNote("sarama's default 0 sends whatever has gathered as soon as a request may go"));
            case "linger.ms":
                return List.of(
                        Setting.client(library, "Config.Producer.Flush.Frequency", value + " * time.Millisecond"));
            case "max.request.size":
                return List.of(LibrarySettings.defaulted(
                        library, "Config.Producer.MaxMessageBytes", value, "1000000", "sarama's"));
            case "max.in.flight.requests.per.connection":
                return List.of(LibrarySettings.defaulted(library, "Config.Net.MaxOpenRequests", value, "5", "sarama's")
                        .withNote("with Config.Producer.Idempotent sarama requires 1"));
            default:
                return List.of(); // messages arrive on a channel: no records-per-poll limit
        }
    }
}
