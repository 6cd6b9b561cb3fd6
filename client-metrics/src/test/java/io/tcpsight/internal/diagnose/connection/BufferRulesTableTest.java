package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.diagnose.RuleFacts.DEFAULTS;
import static io.tcpsight.internal.diagnose.RuleFacts.KERNEL_618;
import static io.tcpsight.internal.diagnose.RuleFacts.interval;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.FindingJson;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.diagnose.keys.KafkaKeys;
import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.KernelVersion;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The buffer rules over role x flow x client software: which buffer a finding names, in whose
 * key, and how severe it is. Each row is written out by hand from the direction the bytes flow,
 * not computed from the rules' own helpers. 100 ms, target 100 Mbit/s.
 */
class BufferRulesTableTest {
    private static final String NONE = "-";

    /** One end of a 100 ms connection of the given role whose broker saw the given flow (NONE: not observed). */
    private static ConnectionIdentity end(String role, String clientId, String flow, String software) {
        Role end = Role.valueOf(role.toUpperCase());
        ConnectionIdentity identity = end == Role.CLIENT
                ? ConnectionIdentity.of(end, address("10.0.0.1", 50000), address("10.0.0.2", 9092))
                : ConnectionIdentity.of(end, address("10.0.0.2", 9092), address("10.0.0.1", 50000))
                        .withListener("PLAINTEXT");
        identity = identity.withClientId(clientId);
        if (!flow.equals(NONE)) {
            identity = identity.withFlow(BulkFlow.valueOf(flow));
        }
        return software.equals(NONE) ? identity : identity.withClientSoftware(software);
    }

    private static InetSocketAddress address(String host, int port) {
        return new InetSocketAddress(host, port);
    }

    /** The severity and remedy, a library's default noted as [default]. */
    private static String describe(Optional<Finding> finding) {
        return RemedyText.describe(finding, "[default]");
    }

    @ParameterizedTest(name = "{0} end, {1} {2} {3}: {4}")
    @CsvSource(
            delimiter = ';',
            value = {
                // the consumer's own window is what fetch responses fill
                "client; consumer-g-1; -; -; critical client:java:receive.buffer.bytes=-1",
                "client; consumer-g-1; TO_CLIENT; -; critical client:java:receive.buffer.bytes=-1",
                // a producer's and an admin client's inbound are small responses
                "client; producer-1; -; -; info client:java:receive.buffer.bytes=-1",
                "client; adminclient-1; -; -; info client:java:receive.buffer.bytes=-1",
                "client; my-app; -; -; critical client:java:receive.buffer.bytes=-1",
                "client; my-app; NONE; -; info client:java:receive.buffer.bytes=-1",
                // the broker's receive buffer is what produce requests fill; fetch requests are small
                "broker; producer-1; TO_BROKER; apache-kafka-java/4.1.0; critical broker:socket.receive.buffer.bytes=-1",
                "broker; rdkafka; TO_BROKER; librdkafka/2.0.2; critical broker:socket.receive.buffer.bytes=-1",
                "broker; consumer-g-1; TO_CLIENT; apache-kafka-java/4.1.0; info broker:socket.receive.buffer.bytes=-1",
                "broker; rdkafka; TO_CLIENT; librdkafka/2.0.2; info broker:socket.receive.buffer.bytes=-1",
                "broker; broker-2-fetcher-0; TO_CLIENT; apache-kafka-java/4.1.0; info broker:socket.receive.buffer.bytes=-1",
                "broker; rdkafka; NONE; librdkafka/2.0.2; info broker:socket.receive.buffer.bytes=-1",
                // a broker that saw no request yet knows nothing of the flow but the client.id's convention
                "broker; consumer-g-1; -; -; info broker:socket.receive.buffer.bytes=-1",
                "broker; rdkafka; -; -; critical broker:socket.receive.buffer.bytes=-1",
            })
    void smallReceiveBufferJudgesTheWindowTheBulkDataFills(
            String role, String clientId, String flow, String software, String expected) {
        ConnectionFacts facts = ConnectionFacts.builder(end(role, clientId, flow, software))
                .established(true)
                .rttMicros(100_000)
                .windowScaling(true)
                .rcvWindowScale(2)
                .receiveBufferBytes(131_072)
                .windowClampBytes(65_536)
                .kafka(KafkaSettings.unknown().withReceiveBufferBytes(65_536))
                .kernel(KERNEL_618)
                .build();
        assertEquals(expected, describe(SmallReceiveBuffer.RULE.judge(facts, DEFAULTS)));
    }

    @ParameterizedTest(name = "{0} end, {1} {2} {3}: {4}")
    @CsvSource(
            delimiter = ';',
            value = {
                // a broker sending fetch responses into a full client window names the client's key, in its library
                "broker; consumer-g-1; TO_CLIENT; apache-kafka-java/4.1.0; critical client:java:receive.buffer.bytes=-1 sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
                "broker; rdkafka; TO_CLIENT; librdkafka/2.0.2; critical client:librdkafka:socket.receive.buffer.bytes=0[default] sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
                "broker; py-app; TO_CLIENT; confluent-kafka-python/2.5.0-rdkafka-2.5.0; critical client:librdkafka:socket.receive.buffer.bytes=0[default] sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
                "broker; go-app; TO_CLIENT; confluent-kafka-go/2.4.0; critical client:librdkafka:socket.receive.buffer.bytes=0[default] sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
                "broker; net-app; TO_CLIENT; confluent-kafka-dotnet/2.4.0; critical client:librdkafka:socket.receive.buffer.bytes=0[default] sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
                // no KIP-511 name (an old client): the client.id's convention, librdkafka's default id, or words
                "broker; rdkafka; TO_CLIENT; -; critical client:librdkafka:socket.receive.buffer.bytes=0[default] sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
                "broker; consumer-g-1; TO_CLIENT; -; critical client:java:receive.buffer.bytes=-1 sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
                "broker; rskafka; TO_CLIENT; rskafka/0.5.0; critical client:unknown:?=unset, or the library's value for the system default, so that the kernel autotunes sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
                // sarama sets no socket buffer: the window is its host's tcp_rmem
                "broker; sarama; TO_CLIENT; sarama/1.43.0; critical client:sarama:Config.Net=no socket buffer setting[default] sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
                "broker; consumer-1; TO_CLIENT; kafka-python/2.3.0; critical client:kafka-python:receive_buffer_bytes=None[default] sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
                // a follower's window is the follower broker's replica key, on the follower
                "broker; broker-2-fetcher-0; TO_CLIENT; apache-kafka-java/4.1.0; critical broker:replica.socket.receive.buffer.bytes=-1[broker 2] sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
                // a Connect task's consumer: worker and connector override
                "broker; connector-consumer-s3-sink-0; TO_CLIENT; apache-kafka-java/3.9.1; critical connect-worker:consumer.receive.buffer.bytes=-1 connector s3-sink:consumer.override.receive.buffer.bytes=-1 sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
                // a producer whose sends fill the broker's window names the broker's receive buffer
                "client; producer-1; -; -; critical broker:socket.receive.buffer.bytes=-1 sysctl:net.ipv4.tcp_rmem=4096 131072 5242880[peer host]",
            })
    void receiveWindowLimitedNamesTheReceiversBufferInTheReceiversKey(
            String role, String clientId, String flow, String software, String expected) {
        ConnectionFacts facts = ConnectionFacts.builder(end(role, clientId, flow, software))
                .rttMicros(100_000)
                .windowScaling(true)
                .sndWindowBytes(65_536)
                .interval(interval(0.9, 0.97, 0, 0, 5000))
                .build();
        assertEquals(expected, describe(ReceiveWindowLimited.RULE.judge(facts, DEFAULTS)));
    }

    @ParameterizedTest(name = "{0} end, {1} {2}: {3}")
    @CsvSource(
            delimiter = ';',
            value = {
                // Kafka's default send.buffer.bytes (128 KiB) caps a producer at 10.5 Mbit/s over 100 ms
                "client; producer-1; -; critical client:java:send.buffer.bytes=-1",
                "client; connector-producer-cdc-0; -; critical connect-worker:producer.send.buffer.bytes=-1 connector cdc:producer.override.send.buffer.bytes=-1",
                "client; my-app; -; critical client:java:send.buffer.bytes=-1",
                // nothing bulk leaves a consumer or an admin client
                "client; consumer-g-1; -; none",
                "client; adminclient-1; -; none",
                "client; my-app; NONE; none",
                // the broker's end of a fetch sends the responses
                "broker; consumer-g-1; TO_CLIENT; critical broker:socket.send.buffer.bytes=-1",
                "broker; producer-1; TO_BROKER; none",
            })
    void smallSendBufferSpeaksOnlyWhereBulkDataLeaves(String role, String clientId, String flow, String expected) {
        ConnectionFacts facts = ConnectionFacts.builder(end(role, clientId, flow, NONE))
                .established(true)
                .rttMicros(100_000)
                .windowScaling(true)
                .kafka(KafkaSettings.unknown().withSendBufferBytes(131_072))
                .kernel(new KernelFacts(KernelVersion.of(6, 18, 44), 33_554_432L, 33_554_432L, 1L)) // tcp_wmem holds it
                .build();
        assertEquals(expected, describe(SmallSendBuffer.RULE.judge(facts, DEFAULTS)));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = ';',
            value = {
                "apache-kafka-java/4.1.0; client:java:fetch.max.bytes=52428800[default] client:java:max.partition.fetch.bytes=23068672 client:java:max.poll.records=22528",
                // librdkafka has no max.poll.records: it hands out records one by one from its prefetch queue
                "librdkafka/2.0.2; client:librdkafka:fetch.max.bytes=52428800[default] client:librdkafka:max.partition.fetch.bytes=23068672",
                "rskafka/0.5.0; client:unknown:?=52428800 client:unknown:?=23068672 client:unknown:?=22528",
                // sarama: Fetch.Max for the whole fetch, Fetch.Default per partition, no records-per-poll limit
                "sarama/1.43.0; client:sarama:Config.Consumer.Fetch.Max=52428800[default] client:sarama:Config.Consumer.Fetch.Default=23068672",
                "kgo/v1.22.3; client:franz-go:kgo.FetchMaxBytes=52428800[default] client:franz-go:kgo.FetchMaxPartitionBytes=23068672 client:franz-go:client.PollRecords(ctx, n)=22528[default]",
                "kafka-python/2.3.0; client:kafka-python:fetch_max_bytes=52428800[default] client:kafka-python:max_partition_fetch_bytes=23068672 client:kafka-python:max_poll_records=22528",
            })
    void fetchSizesAreSpelledForTheClientsLibrary(String software, String expected) {
        ConnectionIdentity broker = end("broker", "app", "TO_CLIENT", software);
        assertEquals(
                expected,
                RemedyText.settings(
                        concat(
                                KafkaKeys.client(broker, "fetch.max.bytes", "52428800"),
                                KafkaKeys.client(broker, "max.partition.fetch.bytes", "23068672"),
                                KafkaKeys.client(broker, "max.poll.records", "22528")),
                        "[default]"));
    }

    @SafeVarargs
    private static List<Setting> concat(List<Setting>... lists) {
        List<Setting> all = new ArrayList<>();
        for (List<Setting> list : lists) {
            all.addAll(list);
        }
        return all;
    }

    @Test
    void anUnknownLibrarysSettingIsDescribedInWords() {
        Setting words = KafkaKeys.client(
                        end("broker", "app", "TO_CLIENT", "rskafka/0.5.0"), "receive.buffer.bytes", "-1")
                .get(0);
        assertTrue(words.lookFor().orElse("").contains("SO_RCVBUF"), words.toString());
        assertTrue(
                FindingJson.of(new Finding(
                                RuleId.RECEIVE_WINDOW_LIMITED,
                                Severity.WARN,
                                end("broker", "app", "TO_CLIENT", "rskafka/0.5.0"),
                                List.of(),
                                new Remedy(List.of(words), "test")))
                        .contains(
                                "{\"scope\":\"client\",\"library\":\"unknown\",\"lookFor\":\"the client library's socket "
                                        + "receive buffer size (SO_RCVBUF)\",\"value\":\"unset,"),
                "no key, the setting in words");
    }
}
