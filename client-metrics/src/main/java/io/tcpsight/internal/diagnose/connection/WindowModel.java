package io.tcpsight.internal.diagnose.connection;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Rates;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The one model by which every rule judges a buffer or a window: a window of W bytes lets at
 * most W bytes be in flight, so over a path of round trip r a connection moves at most W / r.
 * A rule speaks when that ceiling is below the target rate (tcpsight.target.throughput.mbit),
 * and critically when it is below a quarter of it. A configured buffer of B bytes is judged as a
 * window of B; a live connection's window is what its scale, clamp and tcp_rmem allow
 * ({@link #windowCeiling}).
 */
public final class WindowModel {
    /** A window without scaling never exceeds this. */
    public static final long UNSCALED_WINDOW_MAX = 65_535;

    private WindowModel() {}

    /** Empty when the ceiling reaches the target; otherwise how bad it is. */
    public static Optional<Severity> judge(double ceilingBytesPerSecond, double targetBytesPerSecond) {
        if (ceilingBytesPerSecond >= targetBytesPerSecond) {
            return Optional.empty();
        }
        return Optional.of(ceilingBytesPerSecond * 4 < targetBytesPerSecond ? Severity.CRITICAL : Severity.WARN);
    }

    /**
     * The whole judgement of a window of {@code windowBytes} (shown as {@code window} in the
     * evidence) over {@code rttMicros}: empty when its ceiling reaches the target.
     */
    public static Optional<Verdict> judge(long windowBytes, Evidence window, long rttMicros, TcpsightConfig config) {
        double ceilingRate = Rates.ceilingBytesPerSecond(windowBytes, rttMicros);
        double target = config.targetBytesPerSecond();
        return judge(ceilingRate, target)
                .map(severity -> new Verdict(severity, ceilingRate, evidence(rttMicros, window, ceilingRate, target)));
    }

    /** What a window rule found: the severity, the ceiling rate and the evidence so far (RTT, window, ceiling, target). */
    public static final class Verdict {
        public final Severity severity;
        public final double ceilingBytesPerSecond;
        public final List<Evidence> evidence;

        Verdict(Severity severity, double ceilingBytesPerSecond, List<Evidence> evidence) {
            this.severity = severity;
            this.ceilingBytesPerSecond = ceilingBytesPerSecond;
            this.evidence = evidence;
        }

        public double ceilingMbit() {
            return Rates.mbit(ceilingBytesPerSecond);
        }
    }

    /**
     * The most this end can ever advertise: 65535 shifted by its window scale, the clamp when the
     * buffer is fixed, and when autotuning decides half of tcp_rmem max, or the clamp autotuning
     * has already reached where the kernel's share of the buffer is larger (6.x measures it from
     * the traffic: a clamp of 62.5% of a 3 MB tcp_rmem max moved 155 Mbit/s at 100 ms).
     */
    public static Optional<Long> windowCeiling(ConnectionFacts facts) {
        if (facts.windowScaling().isEmpty()) {
            return Optional.empty();
        }
        long ceiling =
                facts.windowScaling().get() ? UNSCALED_WINDOW_MAX << facts.rcvWindowScale() : UNSCALED_WINDOW_MAX;
        if (fixedReceiveBuffer(facts) && facts.windowClampBytes().isPresent()) {
            ceiling = Math.min(ceiling, facts.windowClampBytes().getAsInt());
        } else if (facts.kernel().tcpRmemMax().isPresent()) {
            long rmemMax = facts.kernel().tcpRmemMax().getAsLong();
            long grown = Math.min(rmemMax, facts.windowClampBytes().orElse(0));
            ceiling = Math.min(ceiling, Math.max(rmemMax / 2, grown));
        }
        return Optional.of(ceiling);
    }

    static boolean fixedReceiveBuffer(ConnectionFacts facts) {
        return facts.kafka().receiveBufferBytes().orElse(-1) > 0;
    }

    private static List<Evidence> evidence(
            long rttMicros, Evidence window, double ceilingBytesPerSecond, double targetBytesPerSecond) {
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(Evidence.rtt(rttMicros));
        evidence.add(window);
        evidence.add(new Evidence("ceilingRate", Rates.mbit(ceilingBytesPerSecond), "Mbit/s"));
        evidence.add(new Evidence("targetRate", Rates.mbit(targetBytesPerSecond), "Mbit/s"));
        return evidence;
    }
}
