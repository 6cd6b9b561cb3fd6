package io.tcpsight.internal.diagnose.config;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.connection.ExpectedRate;
import io.tcpsight.internal.diagnose.connection.ProduceRules;
import io.tcpsight.internal.diagnose.connection.WindowModel;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.keys.KafkaKeys;
import io.tcpsight.internal.model.BulkFlow;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.ProducerPipeline;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * Rules on a client's configuration before any connection exists, such as a Connect worker's
 * {@code consumer.receive.buffer.bytes} read at startup or a connector's override at validation.
 */
public final class ClientConfigRules {
    private ClientConfigRules() {}

    /**
     * An explicit socket buffer ({@code key=bytes}, set where {@code scope} says) whose window
     * ceiling at {@code rttMicros} is below the target rate; empty for -1 (autotuning) and large
     * enough buffers. {@code rttMeasured} says whether the RTT is the cluster's or the assumed
     * tcpsight.rule.min.rtt.ms.
     */
    public static Optional<Finding> explicitBuffer(
            String scope,
            String key,
            long bytes,
            ConnectionIdentity owner,
            long rttMicros,
            boolean rttMeasured,
            TcpsightConfig config) {
        String path = rttMeasured
                ? String.format("the measured RTT to the cluster, %.1f ms", rttMicros / 1000.0)
                : String.format("any path of %.0f ms or more (tcpsight.rule.min.rtt.ms)", rttMicros / 1000.0);
        // judged before any connection exists, often over an assumed path: no flow yet whose other ceilings could
        // say a rate after all; the per-path findings of the same settings say it (settingsOnMeasuredPath)
        return buffer(key, bytes, owner, rttMicros, path, List.of(new Setting(scope, key, "-1")), config);
    }

    /**
     * A client's own configured buffer against the RTT measured on a path to its brokers, for a
     * client none of whose sockets on that path has a certain owner (TLS): the buffer the client sets
     * is the same on each of its sockets, and the path's RTT is the same whoever owns a socket, so
     * the finding is certain without naming a socket. Judges the buffer the client's bulk data
     * passes: a consumer's receive buffer, a producer's send buffer. {@code owner} names the client
     * (a connector's tasks as "connector-consumer-NAME-*") and the path (remote, node); the remedy
     * is in the client's own keys.
     */
    public static List<Finding> settingsOnMeasuredPath(
            ConnectionIdentity owner, KafkaSettings settings, long rttMicros, TcpsightConfig config) {
        BulkFlow flow = owner.bulkFlow();
        if (flow != BulkFlow.TO_CLIENT && flow != BulkFlow.TO_BROKER) {
            return List.of();
        }
        String key = flow == BulkFlow.TO_CLIENT ? "receive.buffer.bytes" : "send.buffer.bytes";
        OptionalInt bytes = flow == BulkFlow.TO_CLIENT ? settings.receiveBufferBytes() : settings.sendBufferBytes();
        if (bytes.isEmpty()) {
            return List.of();
        }
        // the flow its kind carries decided the buffer judged, and the finding says so
        ConnectionIdentity client = owner.withFlow(flow);
        String peer = owner.remote().map(ConnectionIdentity::address).orElse(null);
        String path = String.format(
                "the %.1f ms measured to %s",
                rttMicros / 1000.0,
                owner.nodeId().map(node -> "node " + node + " (" + peer + ")").orElse(String.valueOf(peer)));
        List<Finding> round = buffer(
                        key, bytes.getAsInt(), client, rttMicros, path, KafkaKeys.client(client, key, "-1"), config)
                .map(List::of)
                .orElse(List.of());
        // a consumer's fetch sizes hold its flow too, once its window no longer does
        List<Limit> unnamed = flow == BulkFlow.TO_CLIENT
                ? ExpectedRate.fetchLimit(settings, rttMicros, config)
                        .map(List::of)
                        .orElse(List.of())
                : List.of();
        return ExpectedRate.annotate(config.targetBytesPerSecond(), OptionalDouble.empty(), round, unnamed);
    }

    /**
     * A producer's configured pipeline (requests in flight times their batches) against the path's
     * RTT, before it sends: produce-pipeline-below-bdp, in the producer's own keys.
     */
    public static Optional<Finding> producerPipeline(
            ConnectionIdentity producer,
            ProducerPipeline pipeline,
            long rttMicros,
            int partitionsPerRequest,
            TcpsightConfig config) {
        return ProduceRules.configuredPipeline(producer, pipeline, rttMicros, partitionsPerRequest, config);
    }

    /** An explicit buffer whose window ceiling over {@code path} is below the target, with this remedy. */
    private static Optional<Finding> buffer(
            String key,
            long bytes,
            ConnectionIdentity owner,
            long rttMicros,
            String path,
            List<Setting> remedy,
            TcpsightConfig config) {
        if (bytes <= 0 || rttMicros <= 0) {
            return Optional.empty();
        }
        Optional<WindowModel.Verdict> verdict =
                WindowModel.judge(bytes, new Evidence(key, bytes, "bytes"), rttMicros, config);
        if (verdict.isEmpty()) {
            return Optional.empty();
        }
        String why = String.format(
                "%s=%d caps each connection at about %.1f Mbit/s over %s, below the %s Mbit/s target"
                        + " (tcpsight.target.throughput.mbit); set %s=-1 so the kernel autotunes the window",
                key,
                bytes,
                verdict.get().ceilingMbit(),
                path,
                trim(config.get(TcpsightConfig.TARGET_THROUGHPUT_MBIT)),
                key);
        boolean receive = key.endsWith("receive.buffer.bytes");
        RuleId rule = receive ? RuleId.SMALL_RECEIVE_BUFFER : RuleId.SMALL_SEND_BUFFER;
        // autotuned, the buffer grows up to its host's max, which a config alone does not show
        Limit limit = new Limit(
                receive ? Limit.RECEIVE_WINDOW : Limit.SEND_BUFFER,
                verdict.get().ceilingBytesPerSecond,
                Limit.UNBOUNDED);
        return Optional.of(
                new Finding(rule, verdict.get().severity, owner, verdict.get().evidence, new Remedy(remedy, why))
                        .withLimit(limit));
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
