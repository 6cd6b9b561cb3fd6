package io.tcpsight.internal.diagnose.keys;

import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ClientLibrary;
import java.util.List;

/** franz-go's keys for the Java keys a remedy names ({@link LibraryKeys}). */
final class FranzGoKeys {
    private FranzGoKeys() {}

    /**
     * franz-go, kgo options (pkg/kgo/config.go): FetchMaxBytes (default 50 MiB), FetchMaxPartitionBytes,
     * PollRecords' argument. kgo sets no socket buffer: its default dialer leaves it to the kernel, and
     * kgo.Dialer takes a dialer whose Control can set one.
     */
    static List<Setting> spell(String javaKey, String value) {
        String library = ClientLibrary.FRANZ_GO.label();
        switch (javaKey) {
            case "receive.buffer.bytes":
            case "send.buffer.bytes":
                return List.of(LibrarySettings.dialer(library, "kgo.Dialer", javaKey, value));
            case "fetch.max.bytes":
                return List.of(LibrarySettings.defaulted(library, "kgo.FetchMaxBytes", value, "52428800", "kgo's"));
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
}
