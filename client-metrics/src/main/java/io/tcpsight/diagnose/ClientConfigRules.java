package io.tcpsight.diagnose;

import io.tcpsight.config.TcpsightConfig;
import io.tcpsight.model.ConnectionIdentity;
import java.util.List;
import java.util.Optional;

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
        if (bytes <= 0 || rttMicros <= 0) {
            return Optional.empty();
        }
        Optional<WindowModel.Verdict> verdict =
                WindowModel.judge(bytes, new Evidence(key, bytes, "bytes"), rttMicros, config);
        if (!verdict.isPresent()) {
            return Optional.empty();
        }
        String path = rttMeasured
                ? String.format("the measured RTT to the cluster, %.1f ms", rttMicros / 1000.0)
                : String.format("any path of %.0f ms or more (tcpsight.rule.min.rtt.ms)", rttMicros / 1000.0);
        String why = String.format(
                "%s=%d caps each connection at about %.1f Mbit/s over %s, below the %s Mbit/s target"
                        + " (tcpsight.target.throughput.mbit); set %s=-1 so the kernel autotunes the window",
                key,
                bytes,
                verdict.get().ceilingMbit(),
                path,
                trim(config.get(TcpsightConfig.TARGET_THROUGHPUT_MBIT)),
                key);
        RuleId rule = key.endsWith("receive.buffer.bytes") ? RuleId.SMALL_RECEIVE_BUFFER : RuleId.SMALL_SEND_BUFFER;
        return Optional.of(new Finding(
                rule,
                verdict.get().severity,
                owner,
                verdict.get().evidence,
                new Remedy(List.of(new Setting(scope, key, "-1")), why)));
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
