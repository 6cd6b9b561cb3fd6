package io.tcpsight.internal.diagnose.keys;

import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ClientLibrary;
import java.util.List;

/** kafka-python's keys for the Java keys a remedy names ({@link LibraryKeys}). */
final class KafkaPythonKeys {
    private KafkaPythonKeys() {}

    /**
     * kafka-python, KafkaConsumer and KafkaProducer keyword arguments (kafka/consumer/group.py,
     * kafka/producer/kafka.py DEFAULT_CONFIG). In 2.x kafka/conn.py appends receive_buffer_bytes and
     * send_buffer_bytes to socket_options as SO_RCVBUF and SO_SNDBUF; 3.x does not apply them (measured
     * with kafka-python 3.0.12): only socket_options reaches the socket.
     */
    static List<Setting> spell(int major, String javaKey, String value) {
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
                return List.of(
                        LibrarySettings.defaulted(library, "fetch_max_bytes", value, "52428800", "kafka-python's"));
            case "max.partition.fetch.bytes":
                return List.of(LibrarySettings.defaulted(
                        library, "max_partition_fetch_bytes", value, "1048576", "kafka-python's"));
            case "max.poll.records":
                return List.of(LibrarySettings.defaulted(library, "max_poll_records", value, "500", "kafka-python's"));
            case "batch.size":
                return List.of(LibrarySettings.defaulted(library, "batch_size", value, "16384", "kafka-python's"));
            case "linger.ms":
                return List.of(LibrarySettings.defaulted(library, "linger_ms", value, "0", "kafka-python's"));
            case "max.request.size":
                return List.of(
                        LibrarySettings.defaulted(library, "max_request_size", value, "1048576", "kafka-python's"));
            case "buffer.memory":
                return List.of(
                        LibrarySettings.defaulted(library, "buffer_memory", value, "33554432", "kafka-python's"));
            case "max.in.flight.requests.per.connection":
                return List.of(LibrarySettings.defaulted(
                        library, "max_in_flight_requests_per_connection", value, "5", "kafka-python's"));
            default:
                return List.of();
        }
    }
}
