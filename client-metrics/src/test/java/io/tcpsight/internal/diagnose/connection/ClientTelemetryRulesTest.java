package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.diagnose.RuleFacts.DEFAULTS;
import static io.tcpsight.internal.diagnose.RuleFacts.KERNEL_618;
import static io.tcpsight.internal.diagnose.RuleFacts.broker;
import static io.tcpsight.internal.diagnose.RuleFacts.interval;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.diagnose.Diagnosis;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.ProduceTraffic;
import io.tcpsight.internal.model.PushedClientMetrics;
import io.tcpsight.internal.model.PushedClientMetrics.Figure;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.tuning.ProducerSizing;
import java.net.InetSocketAddress;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The rules that read what a client pushed of itself (KIP-714) beside what the kernel says of the
 * same socket: request-latency-beyond-path, and the client's own figures as evidence in
 * receive-window-limited (its lag) and produce-pipeline-below-bdp (its queue time and buffer).
 */
class ClientTelemetryRulesTest {
    private static final String INSTANCE = "AAAAAAAAAAAAAAAAAAAAAQ";
    private static final long T0 = 1_000_000_000_000L;

    private static PushedClientMetrics push(long atNanos, Map<Figure, Double> figures) {
        return new PushedClientMetrics(INSTANCE, atNanos, figures);
    }

    /**
     * A producer's connection at the broker: rtt, the broker's receive buffer (SO_RCVBUF as the
     * kernel reports it), Produce requests a second of a size, and the latency it pushed.
     */
    private static ConnectionFacts producerAtBroker(
            double rttMillis, int receiveBuffer, long requestsPerSecond, long bytesPerRequest, Double latencyMs) {
        ConnectionFacts.Builder facts = ConnectionFacts.builder(broker("producer-1"))
                .established(true)
                .rttMicros(Math.round(rttMillis * 1000))
                .windowScaling(true)
                .receiveBufferBytes(receiveBuffer)
                .kafka(KafkaSettings.unknown()
                        .withProduceTraffic(new ProduceTraffic(
                                requestsPerSecond * 10, requestsPerSecond * 10 * bytesPerRequest, 10, 1)))
                .kernel(KERNEL_618);
        if (latencyMs != null) {
            facts.pushed(push(T0, Map.of(Figure.PRODUCER_REQUEST_LATENCY_AVG_MS, latencyMs)));
        }
        return facts.build();
    }

    @ParameterizedTest(name = "rtt {0} ms, buffer {1}, {2}/s of {3} bytes, pushed latency {4} ms: {5}")
    @CsvSource(
            delimiter = ';',
            value = {
                // 100 ms, 16 KiB a round trip through a 1 MiB window: 150 ms beyond the round trip are the broker's
                "100; 2097152; 10; 16384; 250; 150.0",
                // the broker's part exactly the path's (twice the round trip): far beyond, the boundary
                "100; 2097152; 10; 16384; 200; 100.0",
                // 99 ms of the broker's beside a 100 ms round trip: the path still explains half
                "100; 2097152; 10; 16384; 199; none",
                // a LAN: 10 ms of the broker's is the floor
                "0.5; 2097152; 10; 16384; 10.6; 10.1",
                "0.5; 2097152; 10; 16384; 10.4; none",
                // 600 KB a round trip against a 1 MiB window: at half of it the window may have held requests back
                "100; 2097152; 60; 100000; 400; none",
                // the same bytes through a 4 MiB window: unfilled, so the 300 ms are the broker's
                "100; 8388608; 60; 100000; 400; 300.0",
            })
    void aProducersOwnLatencyFarBeyondTheRoundTripIsTheBrokersTime(
            double rttMillis, int buffer, long perSecond, long bytes, double latency, String brokerTime) {
        Optional<Finding> finding = RequestLatencyBeyondPath.RULE.judge(
                producerAtBroker(rttMillis, buffer, perSecond, bytes, latency), DEFAULTS);
        assertEquals(
                brokerTime,
                finding.map(f -> f.evidence("brokerTime").get().value().toString())
                        .orElse("none"),
                finding.map(Finding::toString).orElse("no finding"));
        finding.ifPresent(f -> {
            assertEquals(Severity.INFO, f.severity());
            assertEquals(RuleId.REQUEST_LATENCY_BEYOND_PATH, f.rule());
            assertTrue(
                    f.remedy().settings().isEmpty(),
                    "no setting shortens the broker's time: " + f.remedy().settings());
            assertEquals(
                    latency,
                    (Double) f.evidence("clientProducerRequestLatencyAvgMs")
                            .get()
                            .value(),
                    1e-9);
            assertEquals(rttMillis, ((Number) f.evidence("rtt").get().value()).doubleValue(), 0.05);
            assertTrue(f.remedy().why().contains("request=Produce"), f.remedy().why());
        });
    }

    /**
     * A Java producer pushes over the connection it bootstrapped on, which carries no Produce
     * request: its own bytes a second to this broker stand in for the wire's. 100 ms; the broker's
     * buffer as the kernel reports Kafka's 102,400 asked for (204,800, a window of 102,400, half of
     * which is the share).
     */
    /**
     * A producer's socket at the broker, 100 ms away, with the broker's receive buffer as the kernel
     * reports it, and a push of the producer's own latency and bytes a second to this broker.
     */
    private static ConnectionFacts.Builder ownWordsOnA100MsSocket(
            int receiveBuffer, double latencyMs, double bytesPerSecond) {
        return ConnectionFacts.builder(broker("producer-1"))
                .established(true)
                .rttMicros(100_000)
                .receiveBufferBytes(receiveBuffer)
                .pushed(push(
                        T0,
                        Map.of(
                                Figure.PRODUCER_REQUEST_LATENCY_AVG_MS, latencyMs,
                                Figure.PRODUCER_OUTGOING_BYTE_RATE, bytesPerSecond)));
    }

    @ParameterizedTest(name = "pushed {0} bytes/s, latency {1} ms: {2}")
    @CsvSource(
            delimiter = ';',
            value = {
                "163840; 250; 150.0",
                // 51,199 bytes a round trip: under half the window; 51,200: half of it, the path's
                "511990; 250; 150.0",
                "512000; 250; none",
                // a producer that sent nothing lately: its average is of requests that are over
                "0; 250; none",
            })
    void aProducersPushOnAQuietSocketIsJudgedByItsOwnBytesToThisBroker(
            double bytesPerSecond, double latency, String brokerTime) {
        ConnectionFacts bootstrapSocket =
                ownWordsOnA100MsSocket(204_800, latency, bytesPerSecond).build();
        Optional<Finding> finding = RequestLatencyBeyondPath.RULE.judge(bootstrapSocket, DEFAULTS);
        assertEquals(
                brokerTime,
                finding.map(f -> f.evidence("brokerTime").get().value().toString())
                        .orElse("none"),
                finding.map(Finding::toString).orElse("no finding"));
        finding.ifPresent(f -> assertEquals(
                bytesPerSecond,
                (Double) f.evidence("clientProducerOutgoingByteRate").get().value(),
                1e-9));
    }

    @Test
    void theNarrowestReadingOfTheWindowDecidesAndTheClientsOwnRateOverTheWires() {
        // a buffer of 8 MiB (4 MiB of window) clamped to 100,000 bytes: 60,000 a round trip fill more than half
        ConnectionFacts clamped = ownWordsOnA100MsSocket(8_388_608, 400.0, 600_000.0)
                .windowClampBytes(100_000)
                .build();
        assertEquals(Optional.empty(), RequestLatencyBeyondPath.RULE.judge(clamped, DEFAULTS));
        // the Produce requests on the socket say 600 KB a round trip, the client's own rate 16 KB: its own wins
        ConnectionFacts both = ownWordsOnA100MsSocket(2_097_152, 400.0, 163_840.0)
                .kafka(KafkaSettings.unknown().withProduceTraffic(new ProduceTraffic(600, 60_000_000, 10, 1)))
                .build();
        assertEquals(
                16_384L,
                RequestLatencyBeyondPath.RULE
                        .judge(both, DEFAULTS)
                        .orElseThrow()
                        .evidence("bytesPerRoundTrip")
                        .get()
                        .value());
    }

    @Test
    void aSocketThatRetransmittedLeavesTheExtraTimeToThePath() {
        for (long retransmitted : new long[] {3, 0}) {
            ConnectionFacts facts = ownWordsOnA100MsSocket(2_097_152, 400.0, 163_840.0)
                    .interval(interval(0.2, 0, 0, retransmitted, 500))
                    .build();
            assertEquals(
                    retransmitted == 0,
                    RequestLatencyBeyondPath.RULE.judge(facts, DEFAULTS).isPresent(),
                    retransmitted + " segments retransmitted");
        }
    }

    @Test
    void withoutTheClientsOwnLatencyTheWireOrTheWindowNothingIsSaid() {
        // no push
        assertEquals(
                Optional.empty(),
                RequestLatencyBeyondPath.RULE.judge(producerAtBroker(100, 2_097_152, 10, 16_384, null), DEFAULTS));
        // a push without the latency (a consumer's, say)
        ConnectionFacts consumer = ConnectionFacts.builder(broker("consumer-1"))
                .rttMicros(100_000)
                .receiveBufferBytes(2_097_152)
                .kafka(KafkaSettings.unknown().withProduceTraffic(new ProduceTraffic(100, 1_638_400, 10, 1)))
                .pushed(push(T0, Map.of(Figure.FETCH_LATENCY_AVG_MS, 900.0, Figure.RECORDS_LAG_MAX, 5.0)))
                .build();
        assertEquals(Optional.empty(), RequestLatencyBeyondPath.RULE.judge(consumer, DEFAULTS));
        // no Produce request in the round: the pushed average is of requests the wire no longer shows
        ConnectionFacts idle = ConnectionFacts.builder(broker("producer-1"))
                .rttMicros(100_000)
                .receiveBufferBytes(2_097_152)
                .kafka(KafkaSettings.unknown().withProduceTraffic(new ProduceTraffic(0, 0, 10, null)))
                .pushed(push(T0, Map.of(Figure.PRODUCER_REQUEST_LATENCY_AVG_MS, 900.0)))
                .build();
        assertEquals(Optional.empty(), RequestLatencyBeyondPath.RULE.judge(idle, DEFAULTS));
        // the broker's receive window not known: whether it held requests back is not known
        ConnectionFacts noWindow = ConnectionFacts.builder(broker("producer-1"))
                .rttMicros(100_000)
                .kafka(KafkaSettings.unknown().withProduceTraffic(new ProduceTraffic(100, 1_638_400, 10, 1)))
                .pushed(push(T0, Map.of(Figure.PRODUCER_REQUEST_LATENCY_AVG_MS, 900.0)))
                .build();
        assertEquals(Optional.empty(), RequestLatencyBeyondPath.RULE.judge(noWindow, DEFAULTS));
        // the producer's own end (the reporter): pushes arrive at the broker only
        ConnectionFacts atProducer = ConnectionFacts.builder(ConnectionIdentity.of(
                                Role.CLIENT,
                                new InetSocketAddress("10.0.0.1", 50000),
                                new InetSocketAddress("10.0.0.2", 9092))
                        .withClientId("producer-1"))
                .rttMicros(100_000)
                .receiveBufferBytes(2_097_152)
                .kafka(KafkaSettings.unknown().withProduceTraffic(new ProduceTraffic(100, 1_638_400, 10, 1)))
                .pushed(push(T0, Map.of(Figure.PRODUCER_REQUEST_LATENCY_AVG_MS, 900.0)))
                .build();
        assertEquals(Optional.empty(), RequestLatencyBeyondPath.RULE.judge(atProducer, DEFAULTS));
    }

    @Test
    void theRuleRunsInEveryRound() {
        assertTrue(ConnectionRules.ALL.contains(RequestLatencyBeyondPath.RULE));
        assertTrue(Diagnosis.connection(producerAtBroker(100, 2_097_152, 10, 16_384, 250.0), DEFAULTS).stream()
                .anyMatch(f -> f.rule() == RuleId.REQUEST_LATENCY_BEYOND_PATH));
    }

    /** A consumer 100 ms away with a 64 KiB window, its fetch responses window-limited at the broker. */
    private static ConnectionFacts.Builder windowLimitedConsumer() {
        return ConnectionFacts.builder(broker("consumer-analytics-1"))
                .rttMicros(100_000)
                .windowScaling(true)
                .sndWindowBytes(65_536)
                .interval(interval(0.9, 0.97, 0, 0, 5000));
    }

    @Test
    void aConsumersOwnLagAndItsGrowthAreEvidenceOnlyNeverACauseTheyCannotShow() {
        PushedClientMetrics earlier = push(T0, Map.of(Figure.RECORDS_LAG_MAX, 1_000.0));
        PushedClientMetrics later = push(T0 + 30_000_000_000L, Map.of(Figure.RECORDS_LAG_MAX, 4_000.0))
                .following(earlier);
        Finding finding = ReceiveWindowLimited.RULE
                .judge(windowLimitedConsumer().pushed(later).build(), DEFAULTS)
                .orElseThrow();
        assertEquals(
                4_000.0, (Double) finding.evidence("clientRecordsLagMax").get().value(), 1e-9);
        assertEquals(
                100.0, (Double) finding.evidence("clientRecordsLagGrowth").get().value(), 1e-9);
        // records-lag-max is the consumer's largest over every partition on every broker: it says nothing of
        // which socket made it, and the text does not claim it
        assertFalse(finding.remedy().why().contains("lag"), finding.remedy().why());
        // the same evidence where the consumer's buffer has opened wide and its reader pauses (4 MB advertised
        // once moves 320 Mbit/s over 100 ms)
        Finding reader = ReceiveWindowLimited.RULE
                .judge(
                        windowLimitedConsumer()
                                .widestSndWindowBytes(4_000_000)
                                .pushed(later)
                                .build(),
                        DEFAULTS)
                .orElseThrow();
        assertTrue(reader.remedy().settings().isEmpty(), "the reader, not the buffer: " + reader);
        assertEquals(
                4_000.0, (Double) reader.evidence("clientRecordsLagMax").get().value(), 1e-9);
        assertEquals(
                100.0, (Double) reader.evidence("clientRecordsLagGrowth").get().value(), 1e-9);
        assertFalse(reader.remedy().why().contains("lag"), reader.remedy().why());
    }

    /**
     * A 64 KiB consumer's socket, window-limited by its buffer (or, with a widest window, by its
     * reader), that pushed twice 30 s apart: its lag 1,000 then {@code laterLag} records, the bytes a
     * second it read from this broker and from other brokers, and its poll()'s idle share.
     */
    private static Finding lagBehindWindow(
            String software, double laterLag, Double here, Double otherBrokers, Double pollIdle, long widestWindow) {
        PushedClientMetrics earlier = push(T0, Map.of(Figure.RECORDS_LAG_MAX, 1_000.0));
        Map<Figure, Double> figures = new EnumMap<>(Figure.class);
        figures.put(Figure.RECORDS_LAG_MAX, laterLag);
        if (here != null) {
            figures.put(Figure.CONSUMER_INCOMING_BYTE_RATE, here);
        }
        if (otherBrokers != null) {
            figures.put(Figure.CONSUMER_INCOMING_BYTE_RATE_OTHER_BROKERS, otherBrokers);
        }
        if (pollIdle != null) {
            figures.put(Figure.POLL_IDLE_RATIO_AVG, pollIdle);
        }
        ConnectionFacts.Builder facts = ConnectionFacts.builder(
                        broker("consumer-analytics-1").withClientSoftware(software))
                .rttMicros(100_000)
                .windowScaling(true)
                .sndWindowBytes(65_536)
                .interval(interval(0.9, 0.97, 0, 0, 5000))
                .pushed(push(T0 + 30_000_000_000L, figures).following(earlier));
        if (widestWindow > 0) {
            facts.widestSndWindowBytes(widestWindow);
        }
        return ReceiveWindowLimited.RULE.judge(facts.build(), DEFAULTS).orElseThrow();
    }

    private static final String JAVA_431 = "apache-kafka-java/4.3.1";

    @ParameterizedTest(
            name = "{0}: lag to {1}, {2} B/s here, {3} B/s at other brokers, poll idle {4}, widest window {5}: {6}")
    @CsvSource(
            delimiter = ';',
            value = {
                // all it reads comes over this socket, its poll() waits for records, and its lag grows: said
                "apache-kafka-java/4.3.1; 4000; 80000; 30; 0.95; 0; true",
                // no point for another broker: a Java client pushes one for each node connection it has
                "apache-kafka-java/4.3.1; 4000; 80000; ; 0.95; 0; true",
                // the boundaries: 1 % of its bytes from other brokers, then just above
                "apache-kafka-java/4.3.1; 4000; 80000; 800; 0.95; 0; true",
                "apache-kafka-java/4.3.1; 4000; 80000; 801; 0.95; 0; false",
                // it reads from another broker too, where its largest lag may be
                "apache-kafka-java/4.3.1; 4000; 80000; 40000; 0.95; 0; false",
                // its poll()'s idle share is evidence only: said whatever it reads, or where it pushed none
                "apache-kafka-java/4.3.1; 4000; 80000; 30; 0.2; 0; true",
                "apache-kafka-java/4.3.1; 4000; 80000; 30; ; 0; true",
                // its lag did not grow, or fell
                "apache-kafka-java/4.3.1; 1000; 80000; 30; 0.95; 0; false",
                "apache-kafka-java/4.3.1; 500; 80000; 30; 0.95; 0; false",
                // nothing read here by its own count, or no count pushed
                "apache-kafka-java/4.3.1; 4000; 0; ; 0.95; 0; false",
                "apache-kafka-java/4.3.1; 4000; ; 30; 0.95; 0; false",
                // its window has opened wide (4 MB): the reader holds the flow, not the buffer
                "apache-kafka-java/4.3.1; 4000; 80000; 30; 0.95; 4000000; false",
                // another library: its per-node counts are not known to be per connection
                "confluent-kafka-python/2.16.1-rdkafka-2.16.0; 4000; 80000; 30; 0.95; 0; false"
            })
    void aGrowingLagIsSaidToBeThisWindowsOnlyWhereAllTheConsumersFiguresAgree(
            String software,
            double laterLag,
            Double here,
            Double otherBrokers,
            Double pollIdle,
            long widestWindow,
            boolean said) {
        Finding finding = lagBehindWindow(software, laterLag, here, otherBrokers, pollIdle, widestWindow);
        String why = finding.remedy().why();
        assertEquals(said, why.contains("its lag grows behind this window"), why);
        if (said) {
            assertTrue(
                    why.contains(String.format(
                            "the consumer's lag grew %.0f records a second to %.0f, and it read %.2f Mbit/s from this"
                                    + " broker",
                            (laterLag - 1_000) / 30, laterLag, here * 8 / 1e6)),
                    why);
            assertEquals(
                    here,
                    (Double) finding.evidence("clientConsumerIncomingByteRate")
                            .get()
                            .value(),
                    1e-9);
            if (pollIdle != null) {
                assertEquals(
                        pollIdle,
                        (Double)
                                finding.evidence("clientPollIdleRatioAvg").get().value(),
                        1e-9);
            }
        }
    }

    @Test
    void aLagWithoutAnEarlierReadingOfTheSameClientHasNoGrowth() {
        PushedClientMetrics earlier = push(T0, Map.of(Figure.RECORDS_LAG_MAX, 4_000.0));
        // another client instance on the same connection (a reconnect reused the port): no growth across the two
        PushedClientMetrics other = new PushedClientMetrics(
                        "AAAAAAAAAAAAAAAAAAAAAg", T0 + 30_000_000_000L, Map.of(Figure.RECORDS_LAG_MAX, 9_000.0))
                .following(earlier);
        Finding alone = ReceiveWindowLimited.RULE
                .judge(windowLimitedConsumer().pushed(other).build(), DEFAULTS)
                .orElseThrow();
        assertEquals(
                9_000.0, (Double) alone.evidence("clientRecordsLagMax").get().value(), 1e-9);
        assertTrue(alone.evidence("clientRecordsLagGrowth").isEmpty(), alone.toString());
        // without a push: the finding as before, no client figures
        Finding without = ReceiveWindowLimited.RULE
                .judge(windowLimitedConsumer().build(), DEFAULTS)
                .orElseThrow();
        assertTrue(without.evidence("clientRecordsLagMax").isEmpty(), without.toString());
    }

    /** 30 requests/s of four full 16 KiB batches, 100 ms away: produce-pipeline-below-bdp, critical (ProduceRulesTableTest). */
    private static ConnectionFacts.Builder pipelineBoundProducer(double bufferTotal) {
        return ConnectionFacts.builder(broker("producer-1").withClientSoftware("apache-kafka-java/4.3.1"))
                .established(true)
                .rttMicros(100_000)
                .windowScaling(true)
                .kafka(KafkaSettings.unknown()
                        .withProduceTraffic(new ProduceTraffic(300, 300 * 65_600L, 10, 4).withBuffer(bufferTotal, 0)))
                .kernel(KERNEL_618);
    }

    private static final String CONFLUENT_PYTHON = "confluent-kafka-python/2.16.1-rdkafka-2.16.0";

    /**
     * A librdkafka producer 100 ms away as the lab measured one (idempotent, 16 KiB batches): 7 requests a
     * second of one full batch each, with its own figures pushed on this socket.
     */
    private static ConnectionFacts librdkafkaProducer(long bytesPerRequest, Map<Figure, Double> pushed) {
        return ConnectionFacts.builder(broker("confluent-pipeline").withClientSoftware(CONFLUENT_PYTHON))
                .established(true)
                .rttMicros(100_000)
                .windowScaling(true)
                .kafka(KafkaSettings.unknown().withProduceTraffic(new ProduceTraffic(70, 70 * bytesPerRequest, 10, 1)))
                .kernel(KERNEL_618)
                .pushed(push(T0, pushed))
                .build();
    }

    @ParameterizedTest(name = "librdkafka pushed a queue time of {0} ms")
    @CsvSource({"0.092", "850.0"})
    void librdkafkasQueueTimeIsItsRequestsWaitToBeWrittenNeverARecordsWaitForThePipeline(double queueTimeMs) {
        // whatever it reads, small as measured or past a round trip: by the library, not by the value
        Finding finding = ProducePipelineBelowBdp.RULE
                .judge(
                        librdkafkaProducer(
                                16_243,
                                Map.of(
                                        Figure.RECORD_QUEUE_TIME_AVG_MS,
                                        queueTimeMs,
                                        Figure.PRODUCER_REQUEST_LATENCY_AVG_MS,
                                        130.7)),
                        DEFAULTS)
                .orElseThrow();
        assertTrue(finding.evidence("clientRecordQueueTimeAvgMs").isEmpty(), finding.toString());
        assertEquals(
                130.7,
                (Double) finding.evidence("clientProducerRequestLatencyAvgMs")
                        .get()
                        .value(),
                1e-9);
        String why = finding.remedy().why();
        assertTrue(!why.contains("agree") && !why.contains("records waited"), why);
        assertTrue(
                why.endsWith("; by its own figures (pushed) each request took 130.7 ms by its own clock against the"
                        + " path's 100.0 ms round trip"),
                why);
    }

    @ParameterizedTest(name = "a Java producer's queue time of {0} ms over a 100 ms round trip")
    @CsvSource(
            delimiter = ';',
            value = {
                // a round trip or more: its records waited behind requests in flight, the pipeline's wait
                "100.0; its records waited 100.0 ms on average in its queue, a round trip or more, for the pipeline",
                "99.9; its records waited 99.9 ms on average in its queue, less than a round trip",
                "20.0; its records waited 20.0 ms on average in its queue, less than a round trip"
            })
    void aJavaProducersQueueTimeIsAgreementOnlyFromARoundTrip(double queueTimeMs, String said) {
        Finding finding = ProducePipelineBelowBdp.RULE
                .judge(
                        pipelineBoundProducer(33_554_432)
                                .pushed(push(T0, Map.of(Figure.RECORD_QUEUE_TIME_AVG_MS, queueTimeMs)))
                                .build(),
                        DEFAULTS)
                .orElseThrow();
        assertEquals(
                queueTimeMs,
                (Double) finding.evidence("clientRecordQueueTimeAvgMs").get().value(),
                1e-9);
        String why = finding.remedy().why();
        assertTrue(why.endsWith(said), why);
        assertEquals(queueTimeMs >= 100, why.contains("agree"), why);
    }

    @Test
    void aPipelineBoundProducerCarriesItsOwnQueueTimeAndBufferWait() {
        Finding finding = ProducePipelineBelowBdp.RULE
                .judge(
                        pipelineBoundProducer(33_554_432)
                                .pushed(push(
                                        T0,
                                        Map.of(
                                                Figure.RECORD_QUEUE_TIME_AVG_MS, 850.0,
                                                Figure.BATCH_SIZE_AVG_BYTES, 16_384.0,
                                                Figure.BUFFERPOOL_WAIT_RATIO, 0.4,
                                                Figure.BUFFER_TOTAL_BYTES, 33_554_432.0,
                                                Figure.BUFFER_AVAILABLE_BYTES, 0.0,
                                                Figure.PRODUCER_REQUEST_LATENCY_AVG_MS, 140.0)))
                                .build(),
                        DEFAULTS)
                .orElseThrow();
        assertEquals(
                850.0,
                (Double) finding.evidence("clientRecordQueueTimeAvgMs").get().value(),
                1e-9);
        assertEquals(
                16_384.0,
                (Double) finding.evidence("clientBatchSizeAvgBytes").get().value(),
                1e-9);
        assertEquals(
                0.4,
                (Double) finding.evidence("clientBufferpoolWaitRatio").get().value(),
                1e-9);
        String why = finding.remedy().why();
        assertTrue(
                why.endsWith(
                        "; the producer's own figures (pushed) agree: its records waited 850.0 ms on average in its"
                                + " queue, a round trip or more, for the pipeline, and its send() waited for buffer.memory 40.0%"
                                + " of the time: the backlog fills it, and each request took 140.0 ms by its own clock against"
                                + " the path's 100.0 ms round trip"),
                why);
    }

    @Test
    void bufferMemoryIsNamedOnlyAboveWhatTheProducersOwnGaugeSays() {
        long sized = ProducerSizing.forPath(100_000, DEFAULTS.targetBytesPerSecond(), 4)
                .bufferMemoryBytes();
        // a producer whose own buffer.memory is half the sized one: named, at the sized value
        Finding small = ProducePipelineBelowBdp.RULE
                .judge(pipelineBoundProducer(sized / 2.0).build(), DEFAULTS)
                .orElseThrow();
        assertEquals(
                Optional.of(Long.toString(sized)),
                small.remedy().settings().stream()
                        .filter(setting -> setting.key().equals(Optional.of("buffer.memory")))
                        .map(Setting::value)
                        .findFirst(),
                small.remedy().settings().toString());
        // one at the sized value already, or above it: never a value in effect, never a cut
        for (double own : new double[] {sized, 2.0 * sized}) {
            Finding enough = ProducePipelineBelowBdp.RULE
                    .judge(pipelineBoundProducer(own).build(), DEFAULTS)
                    .orElseThrow();
            assertTrue(
                    enough.remedy().settings().stream()
                            .noneMatch(setting -> setting.key().equals(Optional.of("buffer.memory"))),
                    own + ": " + enough.remedy().settings());
        }
    }
}
