package io.tcpsight.internal.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What tcpsight reads from a driver's statistics ({@code ethtool -S}): the cloud allowance
 * counters (ENA's {@code bw_out_allowance_exceeded}, {@code pps_allowance_exceeded}, ...) and the
 * packets each transmit queue sent, under the names the common drivers use.
 */
public final class DriverStats {
    /**
     * Per-queue transmit packet counters: virtio_net, ixgbe and ifb {@code tx_queue_0_packets}; ENA
     * {@code queue_0_tx_cnt}; mlx5 {@code tx0_packets}; i40e/ice {@code tx-0.tx_packets}.
     */
    private static final List<Pattern> TX_QUEUE_PACKETS = List.of(
            Pattern.compile("^tx_queue_(\\d+)_packets$"),
            Pattern.compile("^queue_(\\d+)_tx_cnt$"),
            Pattern.compile("^tx(\\d+)_packets$"),
            Pattern.compile("^tx-(\\d+)\\.(?:tx_)?packets$"));

    private DriverStats() {}

    /** The allowance counters by name (every name ending in {@code _allowance_exceeded}). */
    public static Map<String, Long> allowanceCounters(Map<String, Long> stats) {
        Map<String, Long> allowance = new TreeMap<>();
        stats.forEach((name, value) -> {
            if (name.endsWith("_allowance_exceeded")) {
                allowance.put(name, value);
            }
        });
        return allowance;
    }

    /** Packets per transmit queue, by queue number from 0; empty when the driver names none. */
    public static List<Long> txQueuePackets(Map<String, Long> stats) {
        for (Pattern pattern : TX_QUEUE_PACKETS) {
            TreeMap<Integer, Long> queues = new TreeMap<>();
            stats.forEach((name, value) -> {
                Matcher matcher = pattern.matcher(name);
                if (matcher.matches()) {
                    queues.put(Integer.parseInt(matcher.group(1)), value);
                }
            });
            if (!queues.isEmpty()) {
                List<Long> packets = new ArrayList<>();
                for (int queue = 0; queue <= queues.lastKey(); queue++) {
                    packets.add(queues.getOrDefault(queue, 0L));
                }
                return packets;
            }
        }
        return List.of();
    }
}
