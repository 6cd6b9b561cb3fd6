package io.tcpsight.connect;

import io.tcpsight.config.TcpsightConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Judges a configured socket buffer before any connection exists: an explicit buffer of B
 * bytes lets at most about B bytes be in flight, so over a path of RTT r a connection moves at
 * most B/r. Pure; the REST extension and the override policy word the result.
 */
final class BufferCheck {
    /** Worker-level client keys a Connect worker passes to its task and admin clients. */
    static final List<String> WORKER_KEYS = Arrays.asList("consumer.receive.buffer.bytes", "consumer.send.buffer.bytes",
            "producer.send.buffer.bytes", "producer.receive.buffer.bytes", "admin.receive.buffer.bytes", "admin.send.buffer.bytes");

    private BufferCheck() {
    }

    /**
     * A warning when {@code value} is an explicit buffer whose ceiling at {@code rtt} is below the
     * target rate; empty for -1 (autotuning), large enough values and anything unparseable.
     */
    static Optional<String> judge(String key, Object value, Duration rtt, boolean rttMeasured, TcpsightConfig config) {
        long bytes;
        try {
            bytes = Long.parseLong(String.valueOf(value).trim());
        } catch (NumberFormatException notANumber) {
            return Optional.empty(); // Connect reports a malformed client config itself
        }
        double seconds = rtt.toNanos() / 1e9;
        if (bytes <= 0 || seconds <= 0) {
            return Optional.empty();
        }
        double ceilingMbit = bytes * 8 / seconds / 1e6;
        double target = config.get(TcpsightConfig.TARGET_THROUGHPUT_MBIT);
        if (ceilingMbit >= target) {
            return Optional.empty();
        }
        String path = rttMeasured ? String.format("the measured RTT to the cluster, %.1f ms", seconds * 1000)
                : String.format("any path of %.0f ms or more (tcpsight.rule.min.rtt.ms)", seconds * 1000);
        return Optional.of(String.format("%s=%d caps each connection at about %.1f Mbit/s over %s, below the %s Mbit/s target"
                + " (tcpsight.target.throughput.mbit); set %s=-1 so the kernel autotunes the window", key, bytes, ceilingMbit, path,
                trim(target), key));
    }

    /** Every small buffer among the worker-level client keys, judged at {@code rtt}. */
    static List<String> worker(Map<String, ?> workerConfig, Duration rtt, boolean rttMeasured, TcpsightConfig config) {
        List<String> warnings = new ArrayList<>();
        for (String key : WORKER_KEYS) {
            Object value = workerConfig.get(key);
            if (value != null) {
                judge(key, value, rtt, rttMeasured, config).ifPresent(warnings::add);
            }
        }
        return warnings;
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
