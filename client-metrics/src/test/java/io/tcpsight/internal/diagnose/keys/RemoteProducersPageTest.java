package io.tcpsight.internal.diagnose.keys;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * docs/runbooks/remote-producers.md gives a producer's settings in each library's own keys as the
 * rules write them (KafkaKeys, LibraryKeys): the page's table is this test's, row for row, for a
 * producer 100 ms from its brokers at a 100 Mbit/s target (batch.size 524288).
 */
class RemoteProducersPageTest {
    /** Each library as the broker knows it: the software it announces (KafkaJS announces none, known by its id). */
    private static final Map<String, String> LIBRARIES = new LinkedHashMap<>();

    static {
        LIBRARIES.put("Java", "apache-kafka-java/4.3.1");
        LIBRARIES.put("librdkafka (kcat, confluent-kafka-*)", "librdkafka/2.6.1");
        LIBRARIES.put("franz-go", "kgo/v1.22.3");
        LIBRARIES.put("kafka-python", "kafka-python/2.3.0");
        LIBRARIES.put("sarama", "sarama/1.45.2");
        LIBRARIES.put("KafkaJS", null);
    }

    private static final Map<String, String> JAVA_SETTINGS = new LinkedHashMap<>();

    static {
        JAVA_SETTINGS.put("batch.size", "524288");
        JAVA_SETTINGS.put("linger.ms", "20");
        JAVA_SETTINGS.put("max.in.flight.requests.per.connection", "5");
        JAVA_SETTINGS.put("send.buffer.bytes", "-1");
    }

    @Test
    void theRunbookGivesEachLibrarysProducerKeysAsTheRulesDo() throws IOException {
        String page = Files.readString(Path.of("../docs/runbooks/remote-producers.md"));
        String table = table();
        assertTrue(
                page.contains(table), "docs/runbooks/remote-producers.md must hold, as the rules give it:\n" + table);
    }

    /** The table: a row per library, a column per Java key, each cell what the remedy names in that library. */
    static String table() {
        StringBuilder table = new StringBuilder("| library |");
        JAVA_SETTINGS.forEach((key, value) ->
                table.append(" `").append(key).append('=').append(value).append("` |"));
        table.append('\n').append("|---|");
        JAVA_SETTINGS.keySet().forEach(key -> table.append("---|"));
        table.append('\n');
        LIBRARIES.forEach((name, software) -> {
            table.append("| ").append(name).append(" |");
            JAVA_SETTINGS.forEach((key, value) -> table.append(' ')
                    .append(cell(KafkaKeys.client(producer(software), key, value)))
                    .append(" |"));
            table.append('\n');
        });
        return table.toString();
    }

    private static String cell(List<Setting> settings) {
        if (settings.isEmpty()) {
            return "nothing to set";
        }
        return settings.stream()
                .map(setting -> "`" + setting.key().orElse(setting.lookFor().orElse("?")) + "=" + setting.value() + "`"
                        + setting.note().map(note -> " (" + note + ")").orElse(""))
                .collect(Collectors.joining("; "));
    }

    private static ConnectionIdentity producer(String software) {
        ConnectionIdentity identity = ConnectionIdentity.of(
                        Role.BROKER, new InetSocketAddress("10.0.0.2", 9092), new InetSocketAddress("10.0.0.1", 50000))
                .withListener("PLAINTEXT")
                .withClientId(software == null ? "kafkajs" : "edge-producer");
        return software == null ? identity : identity.withClientSoftware(software);
    }
}
