package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.diagnose.RuleFacts.DEFAULTS;
import static io.tcpsight.internal.diagnose.RuleFacts.KERNEL_618;
import static io.tcpsight.internal.diagnose.RuleFacts.broker;
import static io.tcpsight.internal.diagnose.RuleFacts.client;
import static io.tcpsight.internal.diagnose.RuleFacts.interval;
import static io.tcpsight.internal.diagnose.RuleFacts.smallBufferConsumer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.diagnose.Diagnosis;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.Rates;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.KernelVersion;
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
                // named twice, once unscaled (window scaling on again: the buffers' rules judge the window, inf) and
                // once by a buffer whose remedy lifts it to 40: the window rises as far as the buffer's remedy allows
                "100; -; receive window:5.2>inf, receive window:3.9>40; 40.0; receive window 3.9->40.0",
                "100; -; receive window:3.9>40, receive window:5.2>inf; 40.0; receive window 3.9->40.0",
                // unscaled and no buffer finding beside it: nothing this end knows holds the window, the target
                "100; -; receive window:5.2>inf, fetch size:45.6>90.2; 90.2; receive window 5.2->45.6, fetch size 45.6->90.2",
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

    /** One step for a ceiling two findings name: both remedies listed, the ceiling now the lower of the two. */
    @Test
    void aCeilingNamedTwiceIsOneStepNamingBoth() {
        Finding unscaled = finding().withLimit(new Limit(Limit.RECEIVE_WINDOW, 5.2 * MBIT, Limit.UNBOUNDED));
        Finding small = finding().withLimit(new Limit(Limit.RECEIVE_WINDOW, 3.9 * MBIT, 40 * MBIT));
        ExpectedRate expected =
                ExpectedRate.of(100 * MBIT, OptionalDouble.empty(), List.of(unscaled, small), List.of());
        assertEquals(1, expected.steps().size());
        assertEquals(2, expected.steps().get(0).namedBy().size());
        assertEquals(3.9, expected.steps().get(0).limit().nowBytesPerSecond() / MBIT, 1e-9);
        assertEquals(40.0, expected.steps().get(0).limit().afterBytesPerSecond() / MBIT, 1e-9);
        assertEquals(40.0, expected.afterAllBytesPerSecond() / MBIT, 1e-9);
    }

    /**
     * The same 64 KiB consumer 100 ms away with eight partitions a broker: 8 x 1 MiB = 8388608 bytes
     * a response (below fetch.max.bytes' 50 MiB), 8388608 / (0.1 s + 8388608 / 12.5e6 B/s) =
     * 8388608 / 0.77108864 = 10878915 B/s = 87.0 Mbit/s: 87% of the target, so no
     * fetch-size-below-bdp finding, yet the flow reaches no more. The window alone is named (5.2
     * Mbit/s, autotuned up to the 32 MiB tcp_rmem max: 16 MiB / 0.1 s = 1342 Mbit/s), and its rate
     * after all is the fetch's 87.0, not the target.
     */
    @Test
    void aFetchSizeNoFindingNamesHoldsTheWindowsRateAfterAll() {
        ConnectionFacts consumer = smallBufferConsumer(100)
                .established(true)
                .kafka(smallBufferConsumer(100).build().kafka().withPartitionsPerBroker(8))
                .build();
        List<Finding> round = Diagnosis.connection(consumer, DEFAULTS);
        assertEquals(
                List.of("small-receive-buffer"),
                round.stream().map(finding -> finding.rule().id()).collect(Collectors.toList()));
        assertEquals(
                87.0, round.get(0).evidence(Finding.EXPECTED_AFTER_ALL).get().value());
    }

    /**
     * A producer's connection whose settings carry a consumer's fetch sizes too (one client config
     * for both): its bulk data leaves this end, so no fetch ceiling holds it. Its send.buffer.bytes
     * 131072 is named (10.5 Mbit/s, 209.7 after); with the fetch ceiling it would say 45.6 Mbit/s.
     */
    @Test
    void aProducersFlowIsNotHeldByFetchSizesItsSettingsCarry() {
        ConnectionFacts producer = ConnectionFacts.builder(client("producer-1"))
                .established(true)
                .rttMicros(100_000)
                .kafka(KafkaSettings.unknown()
                        .withSendBufferBytes(131_072)
                        .withFetchMaxBytes(52_428_800L)
                        .withMaxPartitionFetchBytes(1_048_576L)
                        .withPartitionsPerBroker(1))
                .kernel(KERNEL_618)
                .build();
        List<Finding> round = Diagnosis.connection(producer, DEFAULTS);
        assertEquals(
                List.of("small-send-buffer"),
                round.stream().map(finding -> finding.rule().id()).collect(Collectors.toList()));
        assertEquals(
                100.0, round.get(0).evidence(Finding.EXPECTED_AFTER_ALL).get().value());
    }

    /**
     * The 64 KiB consumer 100 ms away on 6.8.0 (the clamp regression's range) with a 2 MiB tcp_rmem
     * max. kernel-window-clamp-regression's remedy (autotune) names no sysctl, so its window grows to
     * half the max in effect: 1048576 bytes / 0.1 s = 10485760 B/s = 83.9 Mbit/s. small-receive-buffer
     * names tcp_rmem max 5 MiB (two BDPs of 1.25 MB at half the buffer, 5 MB rounded up to whole MiB):
     * 2621440 / 0.1 = 209.7 Mbit/s. Both remedies applied, the window moves to the larger, and the fetch
     * size binds after all: 90.2, as above; the clamp's 83.9 alone would hold it lower.
     */
    @Test
    void theClampRegressionsWindowRisesToTheHostMaxInEffect() {
        KernelFacts smallRmem = new KernelFacts(KernelVersion.of(6, 8, 0), 2_097_152L, 4_194_304L, 1L);
        List<Finding> round = Diagnosis.connection(
                smallBufferConsumer(100).established(true).kernel(smallRmem).build(), DEFAULTS);
        assertEquals(
                List.of("small-receive-buffer", "kernel-window-clamp-regression", "fetch-size-below-bdp"),
                round.stream().map(finding -> finding.rule().id()).collect(Collectors.toList()));
        Limit clamp = round.get(1).limit().get();
        assertEquals(Limit.RECEIVE_WINDOW, clamp.name());
        assertEquals(5.2, Rates.mbit(clamp.nowBytesPerSecond()), 0.05);
        assertEquals(83.9, Rates.mbit(clamp.afterBytesPerSecond()), 0.05);
        assertEquals(209.7, Rates.mbit(round.get(0).limit().get().afterBytesPerSecond()), 0.05);
        round.forEach(finding -> assertEquals(
                90.2, finding.evidence(Finding.EXPECTED_AFTER_ALL).get().value(), finding.toString()));
    }

    /**
     * CUBIC 2 ms away at 1% loss (1000 of 100000 segments), below the 20 ms from which BBR is advised:
     * no remedy lifts the loss's ceiling. Reno's region: sqrt(1.5 / 0.01) = 12.25 segments of 1448 bytes
     * a round trip, 17734 / 0.002 s = 8867153 B/s = 70.9 Mbit/s (CUBIC's own, 1.054 x (0.002 / 0.01)^0.75
     * = 0.3 segments, is less). The ceiling stands: 70.9 after all.
     */
    @Test
    void lossWithoutACongestionControlRemedyHoldsTheRate() {
        List<Finding> round = Diagnosis.connection(lossy(2_000, 1_000), DEFAULTS);
        assertEquals(
                List.of("retransmissions"),
                round.stream().map(finding -> finding.rule().id()).collect(Collectors.toList()));
        assertTrue(round.get(0).remedy().settings().isEmpty());
        assertEquals(
                70.9, round.get(0).evidence(Finding.EXPECTED_AFTER_ALL).get().value());
    }

    /**
     * CUBIC 25 ms away at 0.7% loss: sqrt(1.5 / 0.007) = 14.64 segments of 1448 bytes a round trip,
     * 21197 / 0.025 s = 847862 B/s = 6.8 Mbit/s now (CUBIC's own, 1.054 x (0.025 / 0.007)^0.75 = 2.7
     * segments, is less). BBR is named, which keeps the rate under random loss: the target after all.
     */
    @Test
    void lossWithBbrNamedLiftsItsCeiling() {
        List<Finding> round = Diagnosis.connection(lossy(25_000, 700), DEFAULTS);
        assertEquals(
                List.of("retransmissions"),
                round.stream().map(finding -> finding.rule().id()).collect(Collectors.toList()));
        assertEquals("bbr", round.get(0).remedy().settings().get(0).value());
        assertEquals(6.8, Rates.mbit(round.get(0).limit().get().nowBytesPerSecond()), 0.05);
        assertEquals(
                100.0, round.get(0).evidence(Finding.EXPECTED_AFTER_ALL).get().value());
    }

    private static ConnectionFacts lossy(long rttMicros, long lost) {
        return ConnectionFacts.builder(client("producer-1"))
                .established(true)
                .rttMicros(rttMicros)
                .sndMssBytes(1448)
                .congestionControl("cubic")
                .interval(interval(0.9, 0, 0, lost, 100_000))
                .build();
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
