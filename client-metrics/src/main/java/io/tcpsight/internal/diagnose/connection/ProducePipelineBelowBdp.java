package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.diagnose.connection.ProduceRules.FAR_BELOW;
import static io.tcpsight.internal.diagnose.connection.ProduceRules.applicationsPace;
import static io.tcpsight.internal.diagnose.connection.ProduceRules.withinTheFlowsRamp;

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
import io.tcpsight.internal.model.ProduceTraffic;
import io.tcpsight.internal.model.PushedClientMetrics;
import io.tcpsight.internal.model.PushedClientMetrics.Figure;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.tuning.Bdp;
import io.tcpsight.internal.tuning.BdpSettings;
import io.tcpsight.internal.tuning.ProducerSizing;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The produce-pipeline-below-bdp rule, on a connection's Produce requests; what it shares with
 * the judgement of a producer's config (the doctor) is {@link ProduceRules}.
 */
final class ProducePipelineBelowBdp implements ConnectionRule {
    static final ConnectionRule RULE = new ProducePipelineBelowBdp();

    private ProducePipelineBelowBdp() {}

    @Override
    public Optional<Finding> judge(ConnectionFacts facts, TcpsightConfig config) {
        Optional<ProduceTraffic> seen = facts.kafka().produceTraffic();
        if (seen.isEmpty() || !facts.established() || !ConnectionRuleParts.longPath(facts.rttMicros(), config)) {
            return Optional.empty();
        }
        ProduceTraffic traffic = seen.get();
        long rtt = facts.rttMicros();
        long bdp = Bdp.bytes(rtt, config.targetBytesPerSecond());
        if (withinTheFlowsRamp(traffic, rtt, bdp)) {
            return Optional.empty();
        }
        double perRoundTrip = traffic.requestsPerRoundTrip(rtt);
        int partitions = Math.max(1, traffic.partitionsPerRequest().orElse(1));
        if (applicationsPace(traffic, rtt)) {
            return Optional.empty();
        }
        double rate = traffic.bytesPerSecond();
        // Judged by what the producer achieved: within FAR_BELOW of the target it is fast, whatever its settings.
        Optional<Severity> severity = WindowModel.judge(rate / FAR_BELOW, config.targetBytesPerSecond())
                .map(below -> rate * 4 < config.targetBytesPerSecond() ? Severity.CRITICAL : Severity.WARN);
        if (severity.isEmpty()) {
            return Optional.empty();
        }
        ProducerSizing sizing = ProducerSizing.forPath(rtt, config.targetBytesPerSecond(), partitions);
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(Evidence.rtt(rtt));
        evidence.add(new Evidence("bdp", bdp, "bytes"));
        evidence.add(new Evidence("produceRate", Rates.mbit(rate), "Mbit/s"));
        evidence.add(new Evidence("targetRate", Rates.mbit(config.targetBytesPerSecond()), "Mbit/s"));
        evidence.add(new Evidence("bytesPerRoundTrip", Math.round(rate * rtt / 1e6), "bytes"));
        // two decimals: the rule speaks from half a request a round trip, where one decimal would be 10 % of the value
        evidence.add(new Evidence("requestsPerRoundTrip", Math.round(perRoundTrip * 100) / 100.0, "count"));
        evidence.add(new Evidence("bytesPerRequest", traffic.bytesPerRequest(), "bytes"));
        evidence.add(new Evidence("partitionsPerRequest", partitions, "count"));
        traffic.bufferHeldBytes().ifPresent(held -> evidence.add(new Evidence("bufferHeld", held, "bytes")));
        // the producer's own figures, where it pushed them (KIP-714): how long its records waited for the pipeline,
        // and how long each request took by its own clock, beside the kernel's round trip
        ClientWords.add(
                facts,
                evidence,
                Figure.RECORD_QUEUE_TIME_AVG_MS,
                Figure.BATCH_SIZE_AVG_BYTES,
                Figure.BUFFERPOOL_WAIT_RATIO,
                Figure.BUFFER_TOTAL_BYTES,
                Figure.PRODUCER_REQUEST_LATENCY_AVG_MS);
        List<Setting> settings = new ArrayList<>();
        settings.addAll(KafkaKeys.client(facts.identity(), "batch.size", Long.toString(sizing.batchBytes())));
        if (sizing.raisesMaxRequest()) {
            settings.addAll(
                    KafkaKeys.client(facts.identity(), "max.request.size", Long.toString(sizing.maxRequestBytes())));
        }
        settings.addAll(KafkaKeys.client(facts.identity(), "linger.ms", Integer.toString(ProducerSizing.LINGER_MS)));
        settings.addAll(KafkaKeys.client(
                facts.identity(),
                "max.in.flight.requests.per.connection",
                Integer.toString(ProducerSizing.IN_FLIGHT_WITH_IDEMPOTENCE)));
        // where the producer's own gauge tells its buffer.memory, the sized one is named only above it (never a value
        // in effect, never a cut); elsewhere, above Kafka's default
        OptionalLong bufferMemory = traffic.bufferTotalBytes();
        if (bufferMemory.isPresent()
                ? sizing.bufferMemoryBytes() > bufferMemory.getAsLong()
                : sizing.raisesBufferMemory()) {
            settings.addAll(
                    KafkaKeys.client(facts.identity(), "buffer.memory", Long.toString(sizing.bufferMemoryBytes())));
        }
        // every remedy changes something: what the producer's own end knows to be in effect is not named (at the
        // broker's end the send buffer it knows is the broker's own, not the producer's)
        boolean producersEnd = facts.identity().role() == Role.CLIENT;
        if (!producersEnd || facts.kafka().sendBufferBytes().orElse(0) != -1) {
            settings.addAll(KafkaKeys.client(facts.identity(), "send.buffer.bytes", Setting.AUTOTUNE));
        }
        long wmem = BdpSettings.kernelBufferMax(rtt, config.targetBytesPerSecond());
        // the reporter reads its own host's sysctls
        if (!producersEnd || facts.kernel().tcpWmemMax().orElse(0) < wmem) {
            settings.add(Setting.sysctl("net.ipv4.tcp_wmem", "4096 16384 " + wmem)
                    .withNote("on the producer's host, where its max is below " + wmem
                            + ": the send buffer must hold every unacknowledged byte"));
        }
        // the named sizes carry this much a round trip; the send buffer they name autotunes to hold it
        Limit limit = new Limit(
                Limit.PRODUCE_PIPELINE, rate, Rates.ceilingBytesPerSecond(sizing.bytesPerRoundTrip(partitions), rtt));
        return Optional.of(new Finding(
                        RuleId.PRODUCE_PIPELINE_BELOW_BDP,
                        severity.get(),
                        facts.identity(),
                        evidence,
                        new Remedy(
                                settings,
                                String.format(
                                        "this producer's requests carry about %d bytes per %.1f ms round trip (%.1f requests of %d"
                                                + " bytes, %d partition(s) each, batches full), %.1f Mbit/s where the path's"
                                                + " bandwidth-delay product is %d bytes; what a round trip carries is the requests in"
                                                + " flight (at most %d with idempotence) times the batches in each, and the client's"
                                                + " send buffer must hold all of it: larger batches and an autotuned send buffer"
                                                + " carry %d bytes per round trip%s",
                                        Math.round(rate * rtt / 1e6),
                                        facts.rttMillis(),
                                        perRoundTrip,
                                        traffic.bytesPerRequest(),
                                        partitions,
                                        Rates.mbit(rate),
                                        bdp,
                                        ProducerSizing.IN_FLIGHT_WITH_IDEMPOTENCE,
                                        sizing.bytesPerRoundTrip(partitions),
                                        ownWords(facts, rtt))))
                .withLimit(limit));
    }

    /**
     * What the producer's own figures add, where it pushed them: that its records waited for the
     * pipeline, not for its application, is then its own word and not an inference from the wire.
     */
    private static String ownWords(ConnectionFacts facts, long rttMicros) {
        if (facts.pushed().isEmpty()) {
            return "";
        }
        PushedClientMetrics pushed = facts.pushed().get();
        StringBuilder words = new StringBuilder();
        ClientWords.recordQueueTimeMs(facts).ifPresent(ms -> {
            // a record that waited a round trip or more waited behind requests in flight: that is the pipeline's wait;
            // a shorter one is said as it is, not as agreement
            words.append(
                    ms * 1000 >= rttMicros
                            ? String.format(
                                    "; the producer's own figures (pushed) agree: its records waited %.1f ms on average in"
                                            + " its queue, a round trip or more, for the pipeline",
                                    ms)
                            : String.format(
                                    "; by its own figures (pushed) its records waited %.1f ms on average in its queue, less"
                                            + " than a round trip",
                                    ms));
        });
        pushed.figure(Figure.BUFFERPOOL_WAIT_RATIO).ifPresent(ratio -> {
            if (ratio > 0) {
                words.append(String.format(
                        "%s its send() waited for buffer.memory %.1f%% of the time: the backlog fills it",
                        words.length() == 0 ? "; by its own figures (pushed)" : ", and", ratio * 100));
            }
        });
        pushed.figure(Figure.PRODUCER_REQUEST_LATENCY_AVG_MS)
                .ifPresent(ms -> words.append(String.format(
                        "%s each request took %.1f ms by its own clock against the path's %.1f ms round trip",
                        words.length() == 0 ? "; by its own figures (pushed)" : ", and", ms, rttMicros / 1000.0)));
        return words.toString();
    }
}
