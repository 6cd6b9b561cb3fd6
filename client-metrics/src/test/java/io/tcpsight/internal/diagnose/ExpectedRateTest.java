package io.tcpsight.internal.diagnose;

import static io.tcpsight.internal.diagnose.ConnectionRulesTest.DEFAULTS;
import static io.tcpsight.internal.diagnose.ConnectionRulesTest.KERNEL_618;
import static io.tcpsight.internal.diagnose.ConnectionRulesTest.broker;
import static io.tcpsight.internal.diagnose.ConnectionRulesTest.client;
import static io.tcpsight.internal.diagnose.ConnectionRulesTest.smallBufferConsumer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.ProduceTraffic;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The rate a flow reaches once every remedy of the round is applied. The table judges the model
 * alone, limits written as {@code name:now>after} (a finding names it, its remedy lifts it to
 * after; {@code inf} for nothing this end knows) or {@code name:now} (no finding names it), in
 * Mbit/s; the tests below it judge whole rounds of real rules, each figure worked out by hand
 * in its comment, never by the model's own helpers.
 */
class ExpectedRateTest {
    private static final double MBIT = 1e6 / 8;

    @ParameterizedTest(name = "target {0}, asked {1}, {2}: {3} after all; {4}")
    @CsvSource(
            delimiter = ';',
            value = {
                // nothing limits the flow: the target
                "100; -; ; 100.0; ",
                // one limit only, lifted far above the target: never above the target
                "100; -; receive window:8.2>inf; 100.0; receive window 8.2->100.0",
                "100; -; receive window:8.2>209.7; 100.0; receive window 8.2->100.0",
                // one limit whose remedy still leaves it below the target
                "100; -; fetch size:45.6>90.2; 90.2; fetch size 45.6->90.2",
                // two limits: lifting the first leaves the second binding, then lifting the second
                "100; -; receive window:8.2>209.7, fetch size:45.6>90.2; 90.2; receive window 8.2->45.6, fetch size 45.6->90.2",
                // the order is the flow's, not the findings': the lowest ceiling binds first
                "100; -; fetch size:45.6>90.2, receive window:8.2>209.7; 90.2; receive window 8.2->45.6, fetch size 45.6->90.2",
                // a ceiling no finding names stands: lifting the window leaves the fetch size at 85
                "100; -; receive window:8.2>209.7, fetch size:85; 85.0; receive window 8.2->85.0, fetch size 85.0->85.0",
                // a limit a finding names whose remedy lifts it less than the next one binds
                "100; -; send buffer:8.2>20, fetch size:45.6>90.2; 20.0; send buffer 8.2->20.0, fetch size 45.6->20.0",
                // a ceiling above the target never binds and is not listed
                "100; -; receive window:8.2>inf, loss:150; 100.0; receive window 8.2->100.0",
                // the application asks less than the limits allow: never more than it asks
                "100; 1.3; receive window:8.2>209.7; 1.3; ",
                "100; 40; receive window:8.2>209.7; 40.0; receive window 8.2->40.0",
                "100; 40; receive window:8.2>209.7, fetch size:20>90.2; 40.0; receive window 8.2->20.0, fetch size 20.0->40.0",
                // the same ceiling named twice (too small and clamped): every remedy applied, the one that lifts it
                // most
                "100; -; receive window:4>16, receive window:5.2>209.7; 100.0; receive window 4.0->100.0",
                // three limits at a gigabit target: produce pipeline, window, send buffer
                "1000; -; produce pipeline:30>2097, receive window:82>inf, send buffer:105>2097; 1000.0; produce pipeline 30.0->82.0, receive window 82.0->105.0, send buffer 105.0->1000.0",
            })
    void theRateAfterEveryRemedyIsTheLeastCeilingLeft(
            double target, String asked, String limits, double afterAll, String steps) {
        List<Finding> named = new ArrayList<>();
        List<Limit> unnamed = new ArrayList<>();
        if (limits != null) {
            for (String written : limits.split(",\\s*")) {
                String[] parts = written.split(":");
                String[] rates = parts[1].split(">");
                double now = Double.parseDouble(rates[0]) * MBIT;
                if (rates.length == 1) {
                    unnamed.add(Limit.standing(parts[0], now));
                } else {
                    double after = rates[1].equals("inf") ? Limit.UNBOUNDED : Double.parseDouble(rates[1]) * MBIT;
                    named.add(finding().withLimit(new Limit(parts[0], now, after)));
                }
            }
        }
        OptionalDouble asks =
                asked.equals("-") ? OptionalDouble.empty() : OptionalDouble.of(Double.parseDouble(asked) * MBIT);
        ExpectedRate expected = ExpectedRate.of(target * MBIT, asks, named, unnamed);
        assertEquals(afterAll, expected.afterAllBytesPerSecond() / MBIT, 1e-9);
        assertEquals(steps == null ? "" : steps, describe(expected));
        assertTrue(expected.afterAllBytesPerSecond() <= target * MBIT, "never above the target");
    }

    private static String describe(ExpectedRate expected) {
        return expected.steps().stream()
                .map(step -> String.format(
                        Locale.ROOT,
                        "%s %.1f->%.1f",
                        step.limit().name(),
                        step.limit().nowBytesPerSecond() / MBIT,
                        step.rateAfterBytesPerSecond() / MBIT))
                .collect(Collectors.joining(", "));
    }

    private static Finding finding() {
        return new Finding(
                RuleId.SMALL_RECEIVE_BUFFER,
                Severity.WARN,
                client("consumer-g-1"),
                List.of(),
                new Remedy(List.of(Setting.client("java", "receive.buffer.bytes", "-1")), "a window"));
    }

    @Test
    void aNamedLimitWithoutARemedyOfItsOwnAndTheStepsNamingIt() {
        Finding named = finding().withLimit(new Limit(Limit.RECEIVE_WINDOW, 8.2 * MBIT, 209.7 * MBIT));
        ExpectedRate expected = ExpectedRate.of(100 * MBIT, OptionalDouble.empty(), List.of(named), List.of());
        assertEquals(List.of(named), expected.steps().get(0).namedBy());
        assertEquals(8.2, expected.nowBytesPerSecond() / MBIT, 1e-9);
        assertThrows(IllegalArgumentException.class, () -> new Limit("x", Double.NaN, 1));
        assertThrows(IllegalArgumentException.class, () -> named.withExpectedAfterAll(Limit.UNBOUNDED));
    }

    /**
     * A consumer 100 ms away with receive.buffer.bytes=65536 and Kafka's fetch sizes, one partition
     * per broker. Its window: 65536 bytes / 0.1 s = 5.2 Mbit/s; autotuned up to this host's 32 MiB
     * tcp_rmem max, 16 MiB of window: far above the target. Its fetch: 1048576 bytes a response,
     * 1048576 / (0.1 s + 1048576 / 12.5e6 B/s) = 45.6 Mbit/s; the named sizes carry 11 MiB
     * (9 BDPs of 1.25 MB, rounded up to whole MiB): 11534336 / (0.1 + 11534336 / 12.5e6) = 90.2
     * Mbit/s. After both remedies the fetch size binds at 90.2, and both findings say so.
     */
    @Test
    void aSmallWindowAndASmallFetchLiftedTogetherLeaveTheFetchProtocolsShare() {
        List<Finding> round =
                Diagnosis.connection(smallBufferConsumer(100).established(true).build(), DEFAULTS);
        assertEquals(
                List.of("small-receive-buffer", "fetch-size-below-bdp"),
                round.stream().map(finding -> finding.rule().id()).collect(Collectors.toList()));
        for (Finding finding : round) {
            assertEquals(
                    90.2, finding.evidence(Finding.EXPECTED_AFTER_ALL).get().value(), finding.toString());
            assertEquals(
                    "Mbit/s", finding.evidence(Finding.EXPECTED_AFTER_ALL).get().unit());
            assertTrue(
                    finding.remedy().why().endsWith("; expected after all: 90.2 Mbit/s"),
                    finding.remedy().why());
        }
        ExpectedRate expected = ExpectedRate.of(100 * MBIT, OptionalDouble.empty(), round, List.of());
        assertEquals("receive window 5.2->45.6, fetch size 45.6->90.2", describe(expected));
    }

    /**
     * The broker's end of a fetch: Kafka's default socket.send.buffer.bytes=102400, 8.2 Mbit/s over
     * 100 ms, and the consumer's Fetch requests asking 1 MiB a partition of 4: 4194304 bytes a
     * response, 4194304 / (0.1 + 4194304 / 12.5e6) = 77.0 Mbit/s, which the send buffer hides now
     * ("next"). Named: tcp_wmem max 5 MiB (this host has 4), 2.5 MiB of send buffer, far above the
     * target; 3 MiB a partition (9 BDPs / 4, rounded up), 12582912 / (0.1 + 12582912 / 12.5e6) =
     * 91.0 Mbit/s after all.
     */
    @Test
    void aSendBufferLiftedLeavesTheFetchSizeThatBindsNext() {
        ConnectionFacts fetchResponses = ConnectionFacts.builder(
                        broker("consumer-g-1").withFlow(BulkFlow.TO_CLIENT))
                .established(true)
                .rttMicros(100_000)
                .kafka(KafkaSettings.unknown()
                        .withSendBufferBytes(102_400)
                        .withFetchMaxBytes(52_428_800L)
                        .withMaxPartitionFetchBytes(1_048_576L)
                        .withPartitionsPerBroker(4))
                .kernel(KERNEL_618)
                .build();
        List<Finding> round = Diagnosis.connection(fetchResponses, DEFAULTS);
        assertEquals(
                List.of("small-send-buffer", "fetch-size-below-bdp"),
                round.stream().map(finding -> finding.rule().id()).collect(Collectors.toList()));
        round.forEach(finding -> assertEquals(
                91.0, finding.evidence(Finding.EXPECTED_AFTER_ALL).get().value(), finding.toString()));
        assertEquals(
                "send buffer 8.2->77.0, fetch size 77.0->91.0",
                describe(ExpectedRate.of(100 * MBIT, OptionalDouble.empty(), round, List.of())));
    }

    /**
     * A producer whose full 16 KiB batches of one partition go 30 a second (3 a round trip of 100
     * ms): 491520 B/s, 3.9 Mbit/s, into the broker's socket.receive.buffer.bytes=102400 (a clamp of
     * 102400 bytes, 8.2 Mbit/s). Named: 512 KiB batches, five in flight, 2621440 bytes a round trip,
     * 209.7 Mbit/s; the window autotunes to 16 MiB. Lifting the pipeline leaves the window binding
     * at 8.2; lifting both, the target.
     */
    @Test
    void aPipelineLiftedLeavesTheBrokersWindowAndBothLiftedTheTarget() {
        List<Finding> round = Diagnosis.connection(producerAtTheBroker(30, 16_384), DEFAULTS);
        assertEquals(
                List.of("small-receive-buffer", "produce-pipeline-below-bdp"),
                round.stream().map(finding -> finding.rule().id()).collect(Collectors.toList()));
        round.forEach(finding -> assertEquals(
                100.0, finding.evidence(Finding.EXPECTED_AFTER_ALL).get().value(), finding.toString()));
        assertEquals(
                "produce pipeline 3.9->8.2, receive window 8.2->100.0",
                describe(ExpectedRate.of(100 * MBIT, OptionalDouble.empty(), round, List.of())));
    }

    /**
     * The same producer sending 8 KiB batches that leave unfilled, 20 a second: 163840 B/s, 1.3
     * Mbit/s, is its application's pace. The broker's window is still too small for the path, and
     * named; the flow reaches what the application asks, 1.3 Mbit/s, and no more.
     */
    @Test
    void aFlowAtTheApplicationsPaceReachesWhatItAsksAndNoMore() {
        List<Finding> round = Diagnosis.connection(producerAtTheBroker(20, 8_192), DEFAULTS);
        assertEquals(
                List.of("small-receive-buffer"),
                round.stream().map(finding -> finding.rule().id()).collect(Collectors.toList()));
        assertEquals(
                1.3, round.get(0).evidence(Finding.EXPECTED_AFTER_ALL).get().value());
        assertTrue(round.get(0).remedy().why().endsWith("expected after all: 1.3 Mbit/s"));
    }

    private static ConnectionFacts producerAtTheBroker(long requestsPerSecond, long bytesPerRequest) {
        return ConnectionFacts.builder(broker("producer-1").withFlow(BulkFlow.TO_BROKER))
                .established(true)
                .rttMicros(100_000)
                .windowScaling(true)
                .rcvWindowScale(7)
                .receiveBufferBytes(204_800)
                .windowClampBytes(102_400)
                .kafka(KafkaSettings.unknown()
                        .withReceiveBufferBytes(102_400)
                        .withSendBufferBytes(102_400)
                        .withProduceTraffic(new ProduceTraffic(
                                requestsPerSecond * 10, requestsPerSecond * 10 * bytesPerRequest, 10, 1)))
                .kernel(KERNEL_618)
                .build();
    }

    /**
     * A producer's own send.buffer.bytes=131072 over 100 ms: 10.5 Mbit/s. Named with tcp_wmem max
     * 5 MiB: 2.5 MiB of send buffer, 209.7 Mbit/s. One limit, and the flow reaches the target, never
     * more.
     */
    @Test
    void oneLimitLiftedReachesTheTargetAndNoMore() {
        ConnectionFacts producer = ConnectionFacts.builder(client("producer-1"))
                .established(true)
                .rttMicros(100_000)
                .kafka(KafkaSettings.unknown().withSendBufferBytes(131_072))
                .kernel(KERNEL_618)
                .build();
        List<Finding> round = Diagnosis.connection(producer, DEFAULTS);
        assertEquals(1, round.size(), round.toString());
        assertEquals(
                100.0, round.get(0).evidence(Finding.EXPECTED_AFTER_ALL).get().value());
    }

    /** A finding that names no limit (a slow handshake, an info buffer the bulk data does not pass) says nothing of the rate. */
    @Test
    void findingsThatNameNoLimitSayNoRate() {
        ConnectionFacts consumer = smallBufferConsumer(100).established(true).build();
        ConnectionFacts producersWindow = ConnectionFacts.builder(client("producer-1"))
                .established(true)
                .rttMicros(100_000)
                .windowScaling(true)
                .rcvWindowScale(2)
                .receiveBufferBytes(131_072)
                .windowClampBytes(65_536)
                .kafka(KafkaSettings.unknown().withReceiveBufferBytes(65_536))
                .kernel(KERNEL_618)
                .build();
        List<Finding> round = Diagnosis.connection(producersWindow, DEFAULTS);
        assertEquals(Severity.INFO, round.get(0).severity());
        assertFalse(round.get(0).limit().isPresent());
        assertFalse(round.get(0).evidence(Finding.EXPECTED_AFTER_ALL).isPresent());
        assertFalse(round.get(0).remedy().why().contains("expected after all"));
        // annotated again (the doctor joins a broker's findings to a connection's), the rate is replaced, not repeated
        Finding once = Diagnosis.connection(consumer, DEFAULTS).get(0).withExpectedAfterAll(50 * MBIT);
        assertEquals(
                1,
                once.remedy().why().split("expected after all").length - 1,
                once.remedy().why());
        assertEquals(
                1,
                once.evidence().stream()
                        .filter(item -> item.name().equals(Finding.EXPECTED_AFTER_ALL))
                        .count());
        assertEquals(50.0, once.evidence(Finding.EXPECTED_AFTER_ALL).get().value());
    }
}
