package io.tcpsight.internal.diagnose.connection;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.Rates;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.diagnose.keys.KafkaKeys;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.ProduceTraffic;
import io.tcpsight.internal.model.ProducerPipeline;
import io.tcpsight.internal.tuning.Bdp;
import io.tcpsight.internal.tuning.ProducerSizing;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * produce-pipeline-below-bdp: a producer whose requests carry far less per round trip than the
 * path's bandwidth-delay product (under half the target rate; critical under a quarter) while its
 * batches fill, judged from the Produce requests: on the broker's side from those the agent
 * read (their count, sizes and partitions), on the producer's side from the client's own
 * per-broker request and byte counts (the reporter). The broker processes one
 * request of a connection at a time, and a client keeps at most a few in flight (five for the
 * Java client with idempotence), so what a round trip can carry is requests in flight times
 * their size: the batch size per partition, the partitions each request names, and the client's
 * send buffer, which must hold every unacknowledged byte. The rule on a connection is
 * {@link ProducePipelineBelowBdp}; here are the boundaries it shares with the judgement of a
 * producer's config before it sends ({@link #configuredPipeline}).
 */
public final class ProduceRules {
    private ProduceRules() {}

    /**
     * A request whose batches average at least this share of the default batch.size filled them
     * before linger.ms ran out: the client had more to send than it sent. Smaller batches leave at
     * linger.ms, and then the application sends no more than that.
     */
    static final double FULL_BATCH_SHARE = 0.75;
    /**
     * A rate this share of the target or more is no finding: a producer's rate is measured, not a
     * ceiling, and one at the line never reaches a target set at the line's rate.
     */
    static final double FAR_BELOW = 0.5;
    /**
     * Requests a round trip that make a busy pipeline (with full batches). A producer with one
     * request in flight, Connect's source default, sends one a round trip plus the request's own
     * time on the line, at the broker and in the sender's pacing: 0.73 of a round trip measured for
     * a Connect source task's 16 KiB requests over 100 ms with BBR. Full batches already say the
     * application had more to send; fewer requests than this leave half of each round trip idle.
     */
    static final double BUSY_REQUESTS_PER_ROUND_TRIP = 0.5;
    /**
     * Where the producer's own end says what its records hold of its buffer.memory (its gauges; the
     * broker cannot see them): under this share, the pipeline holds no backlog. A producer its
     * pipeline limits writes more than the pipeline carries, so its records fill buffer.memory
     * until send() blocks (all 32 MiB, measured at 100 ms with one request in flight). One paced by
     * its application, full batches a burst at a time, holds only the batches in flight (one or
     * two of 16 KiB, measured). A time would not do: the producer's record-queue-time-avg spans a
     * minute, so a paced producer's first minute carries its start-up's waits for metadata and a
     * producer id (227 ms at 100 ms, against 58 ms later). The broker alone cannot tell the two
     * apart and judges from the requests.
     */
    static final double BACKLOG_SHARE_OF_BUFFER = 0.5;

    /**
     * Whether the producer sends at its application's pace, not its pipeline's: an idle part of each
     * round trip, batches that leave unfilled, or no backlog behind the pipeline.
     */
    static boolean applicationsPace(ProduceTraffic traffic, long rttMicros) {
        int partitions = Math.max(1, traffic.partitionsPerRequest().orElse(1));
        // a batch's fill from the requests it was read from, where known (the broker's); else the mean request over
        // its partitions
        double batchBytes = traffic.meanBatchBytes().orElse((double) traffic.bytesPerRequest() / partitions);
        if (traffic.requestsPerRoundTrip(rttMicros) < BUSY_REQUESTS_PER_ROUND_TRIP
                || batchBytes < FULL_BATCH_SHARE * ProducerSizing.DEFAULT_BATCH_BYTES) {
            return true;
        }
        return traffic.bufferHeldBytes().isPresent()
                && traffic.bufferHeldBytes().getAsLong()
                        < BACKLOG_SHARE_OF_BUFFER * traffic.bufferTotalBytes().getAsLong();
    }

    /**
     * What the application asks of the flow, where its traffic shows it: a producer at its own pace
     * sends what it produces, and no remedy makes it produce more. Empty for any other flow.
     */
    static OptionalDouble askedBytesPerSecond(ConnectionFacts facts) {
        Optional<ProduceTraffic> seen = facts.kafka().produceTraffic();
        if (seen.isEmpty() || facts.rttMicros() <= 0 || !applicationsPace(seen.get(), facts.rttMicros())) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(seen.get().bytesPerSecond());
    }

    /** TCP's initial window (RFC 6928): ten segments of 1,448 bytes, where slow start begins. */
    static final long INITIAL_WINDOW_BYTES = 10 * 1448L;

    /**
     * The round trips a new flow spends in slow start before it can carry the path: its window
     * doubles each round trip from the initial one, up to two BDPs (as the send buffer autotunes
     * alongside). 100 ms at 200 Mbit/s: nine, 0.9 s.
     */
    static int rampRoundTrips(long bdpBytes) {
        double doublings = Math.log(Math.max(1.0, 2.0 * bdpBytes / INITIAL_WINDOW_BYTES)) / Math.log(2);
        return (int) Math.ceil(doublings);
    }

    /**
     * Whether the interval began while the flow was still in its slow start: what it carried then
     * is TCP's ramp, not the pipeline's. Measured: a Java producer whose batches and send buffer
     * already carry the path was judged on its first interval at 98 Mbit/s, 1.2 requests a round
     * trip, where it went on at 194 Mbit/s. Where the flow's start was not seen, the interval is judged.
     */
    static boolean withinTheFlowsRamp(ProduceTraffic traffic, long rttMicros, long bdpBytes) {
        return traffic.flowSecondsAtStart().isPresent()
                && traffic.flowSecondsAtStart().getAsDouble() < rampRoundTrips(bdpBytes) * rttMicros / 1e6;
    }

    /**
     * A producer's config judged before it sends (the doctor): what its pipeline can carry a round
     * trip, its requests in flight times a batch per partition up to max.request.size, over the
     * path's RTT, against the target, as a window is judged. A pipeline that moves the target is no
     * finding. The remedy names only the keys the sizing for the path changes (larger batches,
     * a linger that fills them, five in flight, room in buffer.memory); where they are all at their
     * most already, more partitions per broker are what carry more.
     */
    public static Optional<Finding> configuredPipeline(
            ConnectionIdentity producer,
            ProducerPipeline pipeline,
            long rttMicros,
            int partitionsPerRequest,
            TcpsightConfig config) {
        if (rttMicros <= 0) {
            return Optional.empty();
        }
        int partitions = Math.max(1, partitionsPerRequest);
        long perRoundTrip = pipeline.bytesPerRoundTrip(partitions);
        double ceiling = Rates.ceilingBytesPerSecond(perRoundTrip, rttMicros);
        Optional<Severity> severity = WindowModel.judge(ceiling, config.targetBytesPerSecond());
        if (severity.isEmpty()) {
            return Optional.empty();
        }
        ProducerSizing sizing = ProducerSizing.forPath(rttMicros, config.targetBytesPerSecond(), partitions);
        List<Setting> settings = new ArrayList<>();
        if (sizing.batchBytes() > pipeline.batchBytes()) {
            settings.addAll(
                    KafkaKeys.clientAboveConfigured(producer, "batch.size", Long.toString(sizing.batchBytes())));
        }
        // a request must hold the sized batches of its partitions: named only where the configured size cannot
        // (librdkafka's 1,000,000 holds a 512 KiB batch, though it is under Java's 1 MiB)
        if (sizing.batchBytes() * partitions > pipeline.maxRequestBytes()
                && sizing.maxRequestBytes() > pipeline.maxRequestBytes()) {
            settings.addAll(KafkaKeys.clientAboveConfigured(
                    producer, "max.request.size", Long.toString(sizing.maxRequestBytes())));
        }
        if (pipeline.lingerMs() < ProducerSizing.LINGER_MS) {
            settings.addAll(
                    KafkaKeys.clientAboveConfigured(producer, "linger.ms", Integer.toString(ProducerSizing.LINGER_MS)));
        }
        if (pipeline.maxInFlight() < ProducerSizing.IN_FLIGHT_WITH_IDEMPOTENCE) {
            settings.addAll(KafkaKeys.clientAboveConfigured(
                    producer,
                    "max.in.flight.requests.per.connection",
                    Integer.toString(ProducerSizing.IN_FLIGHT_WITH_IDEMPOTENCE)));
        }
        if (sizing.bufferMemoryBytes() > pipeline.bufferMemoryBytes()) {
            settings.addAll(KafkaKeys.clientAboveConfigured(
                    producer, "buffer.memory", Long.toString(sizing.bufferMemoryBytes())));
        }
        long bdp = Bdp.bytes(rttMicros, config.targetBytesPerSecond());
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(Evidence.rtt(rttMicros));
        evidence.add(new Evidence("bdp", bdp, "bytes"));
        evidence.add(new Evidence("batch.size", pipeline.batchBytes(), "bytes"));
        evidence.add(new Evidence("max.in.flight.requests.per.connection", pipeline.maxInFlight(), "count"));
        evidence.add(new Evidence("partitionsPerRequest", partitions, "count"));
        evidence.add(new Evidence("bytesPerRoundTrip", perRoundTrip, "bytes"));
        evidence.add(new Evidence("ceilingRate", Rates.mbit(ceiling), "Mbit/s"));
        evidence.add(new Evidence("targetRate", Rates.mbit(config.targetBytesPerSecond()), "Mbit/s"));
        // the config with the named keys raised, never below what it sets already
        long after = pipeline.atLeast(
                        sizing.batchBytes(), ProducerSizing.IN_FLIGHT_WITH_IDEMPOTENCE, sizing.maxRequestBytes())
                .bytesPerRoundTrip(partitions);
        String why = String.format(
                "%d request(s) in flight of %d partition(s) of batch.size=%d carry at most %d bytes per %.1f ms"
                        + " round trip, %.1f Mbit/s, where the path's bandwidth-delay product at the target is %d"
                        + " bytes; %s",
                pipeline.maxInFlight(),
                partitions,
                pipeline.batchBytes(),
                perRoundTrip,
                rttMicros / 1000.0,
                Rates.mbit(ceiling),
                bdp,
                settings.isEmpty()
                        ? "its keys are at their most already: more partitions on each broker carry more a request"
                        : "sized for the path, a round trip carries " + after + " bytes");
        return Optional.of(new Finding(
                        RuleId.PRODUCE_PIPELINE_BELOW_BDP,
                        severity.get(),
                        producer,
                        evidence,
                        new Remedy(settings, why))
                .withLimit(new Limit(Limit.PRODUCE_PIPELINE, ceiling, Rates.ceilingBytesPerSecond(after, rttMicros))));
    }
}
