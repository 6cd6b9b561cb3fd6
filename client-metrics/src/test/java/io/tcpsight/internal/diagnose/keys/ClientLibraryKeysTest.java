package io.tcpsight.internal.diagnose.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ClientLibrary;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each library named from what the broker sees (its KIP-511 software, else its client.id), and a
 * broker-side remedy in that library's own key. Rows written out from each library's source.
 */
class ClientLibraryKeysTest {
    private static final String NONE = "-";

    @ParameterizedTest(name = "{0} / client.id {1} -> {2}")
    @CsvSource({
        "apache-kafka-java/4.3.1, consumer-g-1, java",
        "librdkafka/2.6.1, rdkafka, librdkafka",
        "kafka-python/2.3.0, kafka-python-2.3.0, kafka-python",
        "kgo/v1.22.3, kgo, franz-go",
        "sarama/1.45.2, sarama, sarama",
        "kafka-go/0.4.48, orders, kafka-go",
        // kafka-go announces no name (measured with v0.4.51): its default client.id is PROGRAM@HOST (module path)
        "-, reader@host-1 (github.com/segmentio/kafka-go), kafka-go",
        "-, kafkajs, kafkajs",
        "-, kafka-python-2.0.2, kafka-python",
        "-, kgo, franz-go",
        "-, sarama, sarama",
        "-, orders-reader, unknown",
        "some-other-client/1.0, kgo, unknown",
    })
    void theLibraryIsKnownFromItsSoftwareElseItsClientIdDefaults(String software, String clientId, String library) {
        assertEquals(library, brokerEnd(software, clientId).clientLibrary().label());
    }

    @ParameterizedTest(name = "{0} {1}={2} -> {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                // kafka-python: 2.x honours receive_buffer_bytes, 3.x only socket_options
                "kafka-python/2.3.0 | receive.buffer.bytes | -1 | kafka-python:receive_buffer_bytes=None[default]",
                "kafka-python/2.3.0 | receive.buffer.bytes | 4194304 | kafka-python:receive_buffer_bytes=4194304[3.x]",
                "kafka-python/3.0.12 | receive.buffer.bytes | -1 | kafka-python:socket_options=no (socket.SOL_SOCKET, socket.SO_RCVBUF, n) entry[3.x]",
                "kafka-python/3.0.12 | receive.buffer.bytes | 4194304 | kafka-python:socket_options=[(socket.SOL_SOCKET, socket.SO_RCVBUF, 4194304)][3.x]",
                "kafka-python/2.3.0 | max.partition.fetch.bytes | 11534336 | kafka-python:max_partition_fetch_bytes=11534336",
                "kafka-python/2.3.0 | fetch.max.bytes | 52428800 | kafka-python:fetch_max_bytes=52428800[default]",
                "kafka-python/2.3.0 | max.poll.records | 51200 | kafka-python:max_poll_records=51200",
                // franz-go
                "kgo/v1.22.3 | fetch.max.bytes | 104857600 | franz-go:kgo.FetchMaxBytes=104857600",
                "kgo/v1.22.3 | max.partition.fetch.bytes | 11534336 | franz-go:kgo.FetchMaxPartitionBytes=11534336",
                "kgo/v1.22.3 | receive.buffer.bytes | -1 | franz-go:kgo.Dialer=the default dialer[kernel]",
                // sarama
                "sarama/1.45.2 | max.partition.fetch.bytes | 11534336 | sarama:Config.Consumer.Fetch.Default=11534336",
                "sarama/1.45.2 | fetch.max.bytes | 52428800 | sarama:Config.Consumer.Fetch.Max=52428800[note]",
                "sarama/1.45.2 | receive.buffer.bytes | -1 | sarama:Config.Net=no socket buffer setting[kernel]",
                "sarama/1.45.2 | max.poll.records | 500 | -",
                // KafkaJS (announces nothing: known by its default clientId)
                "- kafkajs | fetch.max.bytes | 52428800 | kafkajs:maxBytes=52428800",
                "- kafkajs | max.partition.fetch.bytes | 1048576 | kafkajs:maxBytesPerPartition=1048576[default]",
                "- kafkajs | receive.buffer.bytes | -1 | kafkajs:socketFactory=no socket buffer setting[kernel]",
                // segmentio/kafka-go
                "- reader@host-1 (github.com/segmentio/kafka-go) | max.partition.fetch.bytes | 11534336 | kafka-go:ReaderConfig.MaxBytes=11534336[note]",
                "- reader@host-1 (github.com/segmentio/kafka-go) | receive.buffer.bytes | 65536 | kafka-go:ReaderConfig.Dialer=a net.Dialer whose Control sets SO_RCVBUF to 65536",
            })
    void aRemedyIsWrittenInTheClientLibrarysOwnKeys(String software, String javaKey, String value, String expected) {
        // "- ID": a client that announced no name, known by its client.id
        boolean announced = !software.startsWith(NONE);
        String clientId = announced ? "orders" : software.substring(2);
        List<Setting> settings = KafkaKeys.client(brokerEnd(announced ? software : NONE, clientId), javaKey, value);
        assertEquals(expected, describe(settings));
    }

    /** "library:key=value" per setting, the note shown as [default], [3.x], [kernel] or [note]. */
    private static String describe(List<Setting> settings) {
        if (settings.isEmpty()) {
            return NONE;
        }
        return settings.stream()
                .map(setting -> setting.library().orElse(null) + ":"
                        + setting.key().orElse(null) + "=" + setting.value() + note(setting))
                .collect(Collectors.joining(", "));
    }

    private static String note(Setting setting) {
        String note = setting.note().orElse(null);
        if (note == null) {
            return "";
        }
        if (note.contains("default: remove")) {
            return "[default]";
        }
        if (note.contains("3.x")) {
            return "[3.x]";
        }
        return note.contains("kernel") ? "[kernel]" : "[note]";
    }

    private static ConnectionIdentity brokerEnd(String software, String clientId) {
        ConnectionIdentity identity = ConnectionIdentity.of(
                        Role.BROKER, new InetSocketAddress("10.0.0.2", 9092), new InetSocketAddress("10.0.0.1", 50000))
                .withListener("PLAINTEXT")
                .withClientId(clientId);
        return software.equals(NONE) ? identity : identity.withClientSoftware(software);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"kgo/v1.22.3, 1", "kafka-python/3.0.12, 3", "sarama/1.45.2, 1", "kafka-python, -1", "x/dev, -1"})
    void theMajorVersionIsReadFromTheSoftwareName(String software, int major) {
        assertEquals(major, ClientLibrary.majorVersion(software));
    }
}
