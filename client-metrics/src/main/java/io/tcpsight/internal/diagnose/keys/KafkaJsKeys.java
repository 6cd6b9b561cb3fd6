package io.tcpsight.internal.diagnose.keys;

import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ClientLibrary;
import java.util.List;

/** KafkaJS's keys for the Java keys a remedy names ({@link LibraryKeys}). */
final class KafkaJsKeys {
    private KafkaJsKeys() {}

    /**
     * KafkaJS, kafka.consumer({...}) options (src/consumer/index.js): maxBytes (default 10485760),
     * maxBytesPerPartition (default 1048576). Node's sockets take no buffer size from KafkaJS: the
     * kernel autotunes (a socketFactory could set one).
     */
    static List<Setting> spell(String javaKey, String value) {
        String library = ClientLibrary.KAFKAJS.label();
        switch (javaKey) {
            case "receive.buffer.bytes":
            case "send.buffer.bytes":
                return List.of(LibrarySettings.noBuffer(library, "socketFactory", javaKey));
            case "fetch.max.bytes":
                return List.of(LibrarySettings.defaulted(library, "maxBytes", value, "10485760", "KafkaJS's"));
            case "max.partition.fetch.bytes":
                return List.of(
                        LibrarySettings.defaulted(library, "maxBytesPerPartition", value, "1048576", "KafkaJS's"));
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
}
