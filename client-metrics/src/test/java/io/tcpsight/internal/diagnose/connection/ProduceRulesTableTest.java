package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.diagnose.RuleFacts.DEFAULTS;
import static io.tcpsight.internal.diagnose.RuleFacts.KERNEL_618;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.config.ClientConfigRules;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.keys.LibraryKeys;
import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ClientLibrary;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.KernelVersion;
import io.tcpsight.internal.model.ProduceTraffic;
import io.tcpsight.internal.model.ProducerPipeline;
import io.tcpsight.internal.model.Role;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * produce-pipeline-below-bdp over traffic x client software x end: when a producer's requests are
 * judged, and the remedy in whose keys. Each row is written out by hand. 100 ms, target 100 Mbit/s:
 * a BDP of 1,250,000 bytes; the remedy sizes twice that in flight over five requests.
 */
class ProduceRulesTableTest {
    private static final String NONE = "-";

    private static ConnectionIdentity end(String role, String clientId, String flow, String software) {
        Role end = Role.valueOf(role.toUpperCase());
        InetSocketAddress client = new InetSocketAddress("10.0.0.1", 50000);
        InetSocketAddress broker = new InetSocketAddress("10.0.0.2", 9092);
        ConnectionIdentity identity = end == Role.CLIENT
                ? ConnectionIdentity.of(end, client, broker)
                : ConnectionIdentity.of(end, broker, client).withListener("PLAINTEXT");
        identity = identity.withClientId(clientId);
        if (!flow.equals(NONE)) {
            identity = identity.withFlow(BulkFlow.valueOf(flow));
        }
        return software.equals(NONE) ? identity : identity.withClientSoftware(software);
    }

    private static String describe(Optional<Finding> finding) {
        return RemedyText.describe(finding, "[note]");
    }

    private static ConnectionFacts facts(ConnectionIdentity identity, ProduceTraffic traffic) {
        KafkaSettings kafka = KafkaSettings.unknown();
        return ConnectionFacts.builder(identity)
                .established(true)
                .rttMicros(100_000)
                .windowScaling(true)
                .kafka(traffic == null ? kafka : kafka.withProduceTraffic(traffic))
                .kernel(KERNEL_618)
                .build();
    }

    private static final String WMEM = "sysctl:net.ipv4.tcp_wmem=4096 16384 5242880[peer host]";

    @ParameterizedTest(name = "{0} end, {1} {3}: {4} requests/s of {5} bytes, {6} partitions: {7}")
    @CsvSource(
            delimiter = ';',
            value = {
                // Java's defaults 100 ms away: 3 requests a round trip of four full 16 KiB batches, 15.7 Mbit/s
                "broker; producer-1; TO_BROKER; apache-kafka-java/4.3.1; 30; 65600; 4;"
                        + " critical client:java:batch.size=131072 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:send.buffer.bytes=-1 "
                        + WMEM,
                // one partition: a batch must carry a fifth of twice the BDP
                "broker; producer-1; TO_BROKER; apache-kafka-java/4.3.1; 30; 16400; 1;"
                        + " critical client:java:batch.size=524288 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:send.buffer.bytes=-1 "
                        + WMEM,
                // 40 Mbit/s: below the target, above a quarter of it
                "broker; producer-1; TO_BROKER; apache-kafka-java/4.3.1; 76; 65600; 4;"
                        + " warn client:java:batch.size=131072 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:send.buffer.bytes=-1 "
                        + WMEM,
                // 64 full batches a request, 252 Mbit/s: fast
                "broker; producer-1; TO_BROKER; apache-kafka-java/4.3.1; 30; 1049600; 64; none",
                // fast: 160 Mbit/s
                "broker; producer-1; TO_BROKER; apache-kafka-java/4.3.1; 20; 1000000; 4; none",
                // idle more than half of each round trip: the application sends no more
                "broker; producer-1; TO_BROKER; apache-kafka-java/4.3.1; 4; 65600; 4; none",
                // batches that leave unfilled (2 KB a partition): linger.ms ran out first, the application's pace
                "broker; producer-1; TO_BROKER; apache-kafka-java/4.3.1; 30; 8000; 4; none",
                // librdkafka: one partition a request; its batch.size (1000000) and in-flight already suffice
                "broker; rdkafka; TO_BROKER; librdkafka/2.6.0; 60; 16400; 1;"
                        + " critical client:librdkafka:linger.ms=20 client:librdkafka:socket.send.buffer.bytes=0[note] "
                        + WMEM,
                "broker; producer-1; TO_BROKER; kafka-python/3.0.11; 30; 65600; 4;"
                        + " critical client:kafka-python:batch_size=131072 client:kafka-python:linger_ms=20"
                        + " client:kafka-python:max_in_flight_requests_per_connection=5[note]"
                        + " client:kafka-python:socket_options=no (socket.SOL_SOCKET, socket.SO_SNDBUF, n) entry[note] "
                        + WMEM,
                "broker; sarama; TO_BROKER; sarama/1.43.0; 30; 65600; 4;"
                        + " critical client:sarama:Config.Producer.Flush.Bytes=131072[note]"
                        + " client:sarama:Config.Producer.Flush.Frequency=20 * time.Millisecond"
                        + " client:sarama:Config.Net.MaxOpenRequests=5[note] client:sarama:Config.Net=no socket buffer"
                        + " setting[note] "
                        + WMEM,
                // a Connect source task's producer: the worker's and the connector's keys
                "broker; connector-producer-pg-source-0; TO_BROKER; apache-kafka-java/4.3.1; 30; 65600; 4;"
                        + " critical connect-worker:producer.batch.size=131072 connector pg-source:producer.override.batch.size=131072"
                        + " connect-worker:producer.linger.ms=20 connector pg-source:producer.override.linger.ms=20"
                        + " connect-worker:producer.max.in.flight.requests.per.connection=5"
                        + " connector pg-source:producer.override.max.in.flight.requests.per.connection=5"
                        + " connect-worker:producer.send.buffer.bytes=-1 connector pg-source:producer.override.send.buffer.bytes=-1 "
                        + WMEM,
                // Connect's source default, one request in flight: a round trip, the request's own time and pacing each
                "broker; connector-producer-pg-source-0; TO_BROKER; apache-kafka-java/4.3.1; 7.3; 16400; 1;"
                        + " critical connect-worker:producer.batch.size=524288 connector pg-source:producer.override.batch.size=524288"
                        + " connect-worker:producer.linger.ms=20 connector pg-source:producer.override.linger.ms=20"
                        + " connect-worker:producer.max.in.flight.requests.per.connection=5"
                        + " connector pg-source:producer.override.max.in.flight.requests.per.connection=5"
                        + " connect-worker:producer.send.buffer.bytes=-1 connector pg-source:producer.override.send.buffer.bytes=-1 "
                        + WMEM,
                // a library this tool does not know: what to look for, in words
                "broker; rs-app; TO_BROKER; rskafka/0.5.0; 30; 65600; 4;"
                        + " critical client:unknown:?=131072 client:unknown:?=20 client:unknown:?=5"
                        + " client:unknown:?=unset, or the library's value for the system default, so that the kernel autotunes "
                        + WMEM,
                // the boundary, 0.5 requests a round trip (BUSY_REQUESTS_PER_ROUND_TRIP), a row on each side: full
                // batches at 0.51 a round trip say the producer had more to send; at 0.49 half of each round trip is
                // idle, the application's pace
                "broker; producer-1; TO_BROKER; apache-kafka-java/4.3.1; 5.1; 65600; 4;"
                        + " critical client:java:batch.size=131072 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:send.buffer.bytes=-1 "
                        + WMEM,
                "broker; producer-1; TO_BROKER; apache-kafka-java/4.3.1; 5.0; 65600; 4;"
                        + " critical client:java:batch.size=131072 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:send.buffer.bytes=-1 "
                        + WMEM,
                "broker; producer-1; TO_BROKER; apache-kafka-java/4.3.1; 4.9; 65600; 4; none",
                // the producer's own end (the reporter counts its requests): the same judgement, in its own keys
                "client; producer-1; TO_BROKER; -; 30; 65600; 4;"
                        + " critical client:java:batch.size=131072 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:send.buffer.bytes=-1 "
                        + WMEM,
                // the producer's end, batches that leave unfilled: the application's pace
                "client; producer-1; TO_BROKER; -; 30; 8000; 4; none",
            })
    void producePipelineBelowBdpJudgesFullBatchesAndSpeaksTheClientsKeys(
            String role,
            String clientId,
            String flow,
            String software,
            double requestsPerSecond,
            long bytesPerRequest,
            int partitions,
            String expected) {
        // over 100 s, so that a rate a hundredth apart from another (the boundary rows) is one the rule sees
        ProduceTraffic traffic = new ProduceTraffic(
                Math.round(requestsPerSecond * 100),
                Math.round(requestsPerSecond * 100) * bytesPerRequest,
                100.0,
                partitions);
        assertEquals(
                expected,
                describe(ProducePipelineBelowBdp.RULE.judge(
                        facts(end(role, clientId, flow, software), traffic), DEFAULTS)));
    }

    /**
     * A batch's fill is read from the requests the broker read it from: 60 requests in 2 s at 100 ms
     * (three a round trip), each one full 16,500-byte batch but the one whose partitions were read,
     * four full batches. The interval's mean request (17,325 bytes) over that request's four
     * partitions read as quarter-full batches, the application's pace, and the rule fell silent on a
     * producer its pipeline holds; the read request's own bytes over its own partitions say full.
     */
    @Test
    void aBatchsFillIsReadFromTheRequestsItWasReadFrom() {
        long bytes = 59 * 16_500L + 66_000;
        ProduceTraffic fromTheReadRequests = new ProduceTraffic(60, bytes, 2.0, 4, 5.0, 66_000 / 4.0);
        ProduceTraffic fromTheLatestPartitionsOnly = new ProduceTraffic(60, bytes, 2.0, 4, 5.0);
        ConnectionIdentity broker = end("broker", "producer-1", "TO_BROKER", "apache-kafka-java/4.3.1");
        // the first row's remedy: Java's defaults, four partitions a request, 100 ms away
        assertEquals(
                "critical client:java:batch.size=131072 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:send.buffer.bytes=-1 "
                        + WMEM,
                describe(ProducePipelineBelowBdp.RULE.judge(facts(broker, fromTheReadRequests), DEFAULTS)));
        assertEquals(
                "none",
                describe(ProducePipelineBelowBdp.RULE.judge(facts(broker, fromTheLatestPartitionsOnly), DEFAULTS)));
    }

    /**
     * Every remedy changes something: at the producer's own end the reporter knows whether its send
     * buffer autotunes and whether its host's tcp_wmem max already holds twice the BDP; what already
     * is, is not named.
     */
    @ParameterizedTest(name = "send.buffer.bytes {0}, tcp_wmem max {1}: {2}")
    @CsvSource(
            delimiter = ';',
            value = {
                "-1; 33554432; critical client:java:batch.size=131072 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note]",
                // the max exactly what the remedy would set: nothing to change
                "-1; 5242880; critical client:java:batch.size=131072 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note]",
                "-1; 5242879; critical client:java:batch.size=131072 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] " + WMEM,
                "-1; 4194304; critical client:java:batch.size=131072 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] " + WMEM,
                // Kafka's default send buffer, set: autotuning is a change
                "131072; 33554432; critical client:java:batch.size=131072 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:send.buffer.bytes=-1",
            })
    void whatIsInEffectAtTheProducersOwnEndIsNeverARemedy(int sendBuffer, long wmemMax, String expected) {
        ConnectionFacts facts = ConnectionFacts.builder(end("client", "producer-1", "TO_BROKER", NONE))
                .established(true)
                .rttMicros(100_000)
                .windowScaling(true)
                .kafka(KafkaSettings.unknown()
                        .withSendBufferBytes(sendBuffer)
                        .withProduceTraffic(new ProduceTraffic(60, 60 * 65_600L, 2.0, 4)))
                .kernel(new KernelFacts(KernelVersion.of(6, 18, 44), 33_554_432L, wmemMax, 1L))
                .build();
        assertEquals(expected, describe(ProducePipelineBelowBdp.RULE.judge(facts, DEFAULTS)));
    }

    /**
     * At the producer's own end its buffer says whose pace it is. Full batches at 0.6 requests a
     * round trip (6 a second at 100 ms): an application that writes a batch's worth at a time holds
     * only the batches in flight of its 32 MiB buffer.memory and stays silent; the same requests
     * from a producer whose records fill half its buffer or more are held by its pipeline. The
     * boundary, half of buffer.memory, with a row on each side; where the buffer is not known (the
     * broker's end) the requests decide.
     */
    @ParameterizedTest(name = "end {0}, records hold {1} of {2} bytes: {3}")
    @CsvSource(
            delimiter = ';',
            value = {
                "client; 0; 33554432; none",
                "client; 32768; 33554432; none",
                "client; 16777215; 33554432; none",
                "client; 16777216; 33554432; critical client:java:batch.size=524288 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:send.buffer.bytes=-1 "
                        + WMEM,
                "client; 33554432; 33554432; critical client:java:batch.size=524288 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:send.buffer.bytes=-1 "
                        + WMEM,
                // what the gauges read is the producer's own buffer.memory, whatever its size; one of 64 KiB cannot
                // hold the batches the remedy names, so buffer.memory is named too, at the sized value above it
                "client; 40000; 65536; critical client:java:batch.size=524288 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:buffer.memory=33554432[note]"
                        + " client:java:send.buffer.bytes=-1 "
                        + WMEM,
                "client; 30000; 65536; none",
                // the broker cannot see the producer's buffer: the same requests are judged as the pipeline's
                "broker; -1; -1; critical client:java:batch.size=524288 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:send.buffer.bytes=-1 "
                        + WMEM,
            })
    void aProducerPacedByItsApplicationIsSilentWhereItsOwnBufferShowsIt(
            String role, long held, long total, String expected) {
        // 0.6 full 16 KiB batches a round trip, one partition each (so the remedy's batch holds a fifth of 2 BDPs)
        ProduceTraffic traffic = new ProduceTraffic(600, 600 * 16_000L, 100.0, 1);
        ProduceTraffic seen = total < 0 ? traffic : traffic.withBuffer(total, total - held);
        String software = role.equals("client") ? NONE : "apache-kafka-java/4.3.1";
        assertEquals(
                expected,
                describe(ProducePipelineBelowBdp.RULE.judge(
                        facts(end(role, "producer-1", "TO_BROKER", software), seen), DEFAULTS)));
    }

    @Test
    void theProducersOwnBufferIsEvidenceWhereItIsKnown() {
        Finding finding = ProducePipelineBelowBdp.RULE
                .judge(
                        facts(
                                end("client", "producer-1", "TO_BROKER", NONE),
                                new ProduceTraffic(60, 60 * 65_600L, 2.0, 4).withBuffer(33_554_432, 1_000_000)),
                        DEFAULTS)
                .get();
        assertEquals(32_554_432L, value(finding, "bufferHeld"));
    }

    @Test
    void bufferGaugesThatCannotBeAreNotKnown() {
        ProduceTraffic traffic = new ProduceTraffic(60, 60 * 65_600L, 2.0, 4);
        assertEquals(false, traffic.withBuffer(0, 0).bufferHeldBytes().isPresent());
        assertEquals(false, traffic.withBuffer(-1, -1).bufferHeldBytes().isPresent());
        assertEquals(false, traffic.withBuffer(100, 101).bufferHeldBytes().isPresent());
        assertEquals(false, traffic.withBuffer(Double.NaN, 5).bufferHeldBytes().isPresent());
        assertEquals(40L, traffic.withBuffer(100, 60).bufferHeldBytes().getAsLong());
    }

    /** At the broker's end the send buffer it knows is its own (socket.send.buffer.bytes), never the producer's. */
    @Test
    void theBrokersOwnAutotunedSendBufferIsNotTheProducers() {
        ConnectionFacts facts = ConnectionFacts.builder(
                        end("broker", "producer-1", "TO_BROKER", "apache-kafka-java/4.3.1"))
                .established(true)
                .rttMicros(100_000)
                .windowScaling(true)
                .kafka(KafkaSettings.unknown()
                        .withSendBufferBytes(-1)
                        .withReceiveBufferBytes(-1)
                        .withProduceTraffic(new ProduceTraffic(60, 60 * 65_600L, 2.0, 4)))
                .kernel(KERNEL_618)
                .build();
        assertEquals(
                "critical client:java:batch.size=131072 client:java:linger.ms=20"
                        + " client:java:max.in.flight.requests.per.connection=5[note] client:java:send.buffer.bytes=-1 "
                        + WMEM,
                describe(ProducePipelineBelowBdp.RULE.judge(facts, DEFAULTS)));
    }

    /**
     * A producer's config before it sends (the doctor): five requests in flight of one 16 KiB batch
     * each carry 81,920 bytes a round trip, 8.6 Mbit/s over 76 ms against a 100 Mbit/s target
     * (critical: under a quarter). The remedy names what the sizing for the path changes and never
     * a value in effect (five in flight is Kafka's default). At the boundary, a pipeline that moves
     * the target over the path is no finding: 100 ms at 100 Mbit/s is 1,250,000 bytes a round trip.
     */
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(
            delimiter = ';',
            value = {
                "Kafka's defaults, 76 ms; critical client:java:batch.size=524288 client:java:linger.ms=20",
                "batch.size=250000, 100 ms; none",
                "batch.size=249999, 100 ms; warn client:java:batch.size=524288 client:java:linger.ms=20",
                "one in flight, batch.size=1048576, linger.ms=50, 100 ms; warn client:java:max.in.flight.requests.per.connection=5[note]",
                "one in flight, batch.size=524288, linger.ms=20, 100 ms; warn client:java:max.in.flight.requests.per.connection=5[note]",
            })
    void aProducersConfiguredPipelineIsJudgedBeforeItSends(String producer, String expected) {
        Map<String, String> config = new HashMap<>();
        long rtt = producer.contains("76 ms") ? 76_000 : 100_000;
        if (producer.contains("batch.size=")) {
            config.put("batch.size", producer.replaceAll(".*batch\\.size=(\\d+).*", "$1"));
        }
        if (producer.contains("linger.ms=")) {
            config.put("linger.ms", producer.replaceAll(".*linger\\.ms=(\\d+).*", "$1"));
        }
        if (producer.contains("one in flight")) {
            config.put("max.in.flight.requests.per.connection", "1");
            config.put("max.request.size", "1048576");
        }
        assertEquals(
                expected,
                describe(ClientConfigRules.producerPipeline(
                        end("client", "producer-1", "TO_BROKER", "apache-kafka-java/4.3.1"),
                        ProducerPipeline.fromClientConfig(config),
                        rtt,
                        1,
                        DEFAULTS)));
    }

    /**
     * A librdkafka producer's own file, read by the doctor: its batch.size set to 16,384 and five in
     * flight (idempotence), 100 ms away. librdkafka's remedy names batch.size although its default
     * (1,000,000) holds the value named: this file set it lower. Where nothing is known of the file
     * (the broker's view), a batch at or under librdkafka's default is left out, as before.
     */
    @Test
    void aLibrdkafkaFilesSmallBatchIsNamedInItsKeysThoughItsDefaultWouldHoldIt() {
        Map<String, String> file = Map.of(
                "batch.size", "16384",
                "linger.ms", "5",
                "max.in.flight.requests.per.connection", "5",
                "max.request.size", "1000000",
                "buffer.memory", "1073741824");
        assertEquals(
                "critical client:librdkafka:batch.size=524288 client:librdkafka:linger.ms=20",
                describe(ClientConfigRules.producerPipeline(
                        end("client", "producer-1", "TO_BROKER", "librdkafka"),
                        ProducerPipeline.fromClientConfig(file),
                        100_000,
                        1,
                        DEFAULTS)));
        assertEquals(
                List.of(),
                LibraryKeys.spell(ClientLibrary.LIBRDKAFKA, "librdkafka", "batch.size", "524288"),
                "nothing known of the client's file: librdkafka's default holds 524288");
        assertEquals(
                "client:librdkafka:queue.buffering.max.kbytes=65537",
                RemedyText.settings(
                        LibraryKeys.spellAboveConfigured(
                                ClientLibrary.LIBRDKAFKA, "librdkafka", "buffer.memory", "67109888"),
                        "[note]"),
                "KiB, rounded up");
    }

    /**
     * Four partitions a request at a 1000 Mbit/s target, 100 ms: five requests of four 1 MiB batches
     * would be 20 MiB a round trip, but max.request.size (1 MiB) holds each request to one: 5 MiB,
     * 419 Mbit/s. The batch is at its most already; the request size, the linger and the buffer are
     * named, and once they are the pipeline carries the target.
     */
    @Test
    void aRequestHoldsItsPartitionsBatchesUpToMaxRequestSize() {
        TcpsightConfig gigabit = TcpsightConfig.from(Map.of("tcpsight.target.throughput.mbit", "1000"));
        Finding finding = ClientConfigRules.producerPipeline(
                        end("client", "producer-1", "TO_BROKER", "apache-kafka-java/4.3.1"),
                        ProducerPipeline.fromClientConfig(
                                Map.of("batch.size", "1048576", "max.request.size", "1048576")),
                        100_000,
                        4,
                        gigabit)
                .orElseThrow();
        assertEquals(5_242_880L, value(finding, "bytesPerRoundTrip"));
        assertEquals(
                "warn client:java:max.request.size=4194304 client:java:linger.ms=20 client:java:buffer.memory=67108864",
                describe(Optional.of(finding)));
        // now 5 MiB a round trip; raised, five requests of four 1 MiB batches: 20 MiB, past the target
        Limit limit = finding.limit().orElseThrow();
        assertEquals(5_242_880 / 0.1, limit.nowBytesPerSecond(), 1.0, limit.toString());
        assertEquals(20_971_520 / 0.1, limit.afterBytesPerSecond(), 1.0, limit.toString());
    }

    @Test
    void aProducerKeyThatIsNoNumberIsRefusedWithItsNameAndWhatIsAllowed() {
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class, () -> ProducerPipeline.fromClientConfig(Map.of("batch.size", "big")));
        assertEquals("batch.size=big is not valid: a whole number from 0 to 2147483647", refused.getMessage());
    }

    /**
     * The same pipeline-bound traffic at 100 ms and the default 100 Mbit/s (a BDP of 1,250,000
     * bytes: slow start needs eight round trips from ten segments to two BDPs, 0.8 s), judged by
     * when its interval began in the flow. An interval that began before the flow's first request
     * (-0.5 s) or within its ramp (0.79 s) holds TCP's start, not the pipeline's limit; from 0.8 s
     * on it is the pipeline's; where the broker did not see the flow start, it is judged as before.
     * At 50 ms the ramp is seven round trips, 0.35 s: the round trip is the facts', not a constant.
     */
    @ParameterizedTest(name = "{0} ms, interval began {1} s into the flow: {2}")
    @CsvSource({
        "100, -0.5, none",
        "100, 0.0, none",
        "100, 0.79, none",
        "100, 0.8, critical",
        "100, 5.0, critical",
        "100, unknown, critical",
        // 50 ms: a BDP of 625,000 bytes, seven round trips to two BDPs, 0.35 s
        "50, 0.34, none",
        "50, 0.35, critical",
    })
    void anIntervalWithinTheFlowsSlowStartIsNotThePipelines(long rttMillis, String flowSeconds, String expected) {
        ProduceTraffic seen = flowSeconds.equals("unknown")
                ? new ProduceTraffic(60, 60 * 65_600L, 2.0, 4)
                : new ProduceTraffic(60, 60 * 65_600L, 2.0, 4, Double.parseDouble(flowSeconds));
        ConnectionFacts facts = ConnectionFacts.builder(
                        end("broker", "producer-1", "TO_BROKER", "apache-kafka-java/4.3.1"))
                .established(true)
                .rttMicros(rttMillis * 1000)
                .windowScaling(true)
                .kafka(KafkaSettings.unknown().withProduceTraffic(seen))
                .kernel(KERNEL_618)
                .build();
        String judged = describe(ProducePipelineBelowBdp.RULE.judge(facts, DEFAULTS));
        assertEquals(expected, judged.split(" ")[0], judged);
        // the producer's own buffer gauges, where they come, keep the flow's age
        assertEquals(seen.flowSecondsAtStart(), seen.withBuffer(100, 60).flowSecondsAtStart());
    }

    @Test
    void slowStartTakesTheRoundTripsItsWindowNeedsToDoubleToTwoBdps() {
        assertEquals(8, ProduceRules.rampRoundTrips(1_250_000)); // 2.5 MB / 14,480 = 172.7: 2^8 = 256
        assertEquals(9, ProduceRules.rampRoundTrips(2_500_000));
        assertEquals(0, ProduceRules.rampRoundTrips(1_000)); // a path the initial window already carries
    }

    @Test
    void noProduceTrafficNoFinding() {
        assertEquals(
                "none",
                describe(ProducePipelineBelowBdp.RULE.judge(
                        facts(end("broker", "producer-1", "TO_BROKER", NONE), null), DEFAULTS)));
    }

    @Test
    void underOneRequestARoundTripTheEvidenceKeepsTwoDecimals() {
        // 20 full 16 KiB requests in 3 s at 100 ms: 0.666... a round trip, rounded to 0.67 (one decimal would say 0.7,
        // a cut instead of a rounding 0.66)
        Finding finding = ProducePipelineBelowBdp.RULE
                .judge(
                        facts(
                                end("broker", "producer-1", "TO_BROKER", "apache-kafka-java/4.3.1"),
                                new ProduceTraffic(20, 20 * 16_384L, 3.0, 1)),
                        DEFAULTS)
                .get();
        assertEquals(0.67, value(finding, "requestsPerRoundTrip"));
    }

    @Test
    void theFindingQuotesWhatTheRequestsCarried() {
        Finding finding = ProducePipelineBelowBdp.RULE
                .judge(
                        facts(
                                end("broker", "producer-1", "TO_BROKER", "apache-kafka-java/4.3.1"),
                                new ProduceTraffic(60, 60 * 65_600L, 2.0, 4)),
                        DEFAULTS)
                .get();
        assertEquals(
                100.0,
                finding.evidence().stream()
                        .filter(e -> e.name().equals("rtt"))
                        .findFirst()
                        .get()
                        .value());
        assertEquals(
                "3.0 requests of 65600 bytes, 4 partitions, 196800 bytes per round trip, bdp 1250000",
                String.format(
                        "%s requests of %s bytes, %s partitions, %s bytes per round trip, bdp %s",
                        value(finding, "requestsPerRoundTrip"),
                        value(finding, "bytesPerRequest"),
                        value(finding, "partitionsPerRequest"),
                        value(finding, "bytesPerRoundTrip"),
                        value(finding, "bdp")));
    }

    private static Object value(Finding finding, String name) {
        return finding.evidence().stream()
                .filter(e -> e.name().equals(name))
                .findFirst()
                .get()
                .value();
    }

    @Test
    void trafficWithoutAnIntervalIsRefusedWithItsNumbers() {
        IllegalArgumentException refused =
                assertThrows(IllegalArgumentException.class, () -> new ProduceTraffic(3, 100, 0, 1));
        assertEquals(
                "requests 3, bytes 100 over 0.0 s: counts are never negative and an interval has a length",
                refused.getMessage());
    }
}
