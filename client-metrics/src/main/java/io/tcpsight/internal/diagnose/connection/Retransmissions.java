package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.config.TcpsightConfig.RULE_MIN_SEGMENTS;
import static io.tcpsight.internal.config.TcpsightConfig.RULE_RETRANSMIT_RATIO;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.found;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.rtt;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.diagnose.finding.Rates;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.HostSignals;
import io.tcpsight.internal.model.IntervalStats;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Loss judged by what it costs: on a loss-based congestion control (CUBIC, Reno) the rate the
 * measured loss allows on this path, against the target; on any other, or when that rate is
 * enough, the retransmitted share against tcpsight.rule.retransmit.ratio.
 */
public final class Retransmissions implements ConnectionRule {
    public static final ConnectionRule RULE = new Retransmissions();

    private Retransmissions() {}

    /** A full-sized segment on Ethernet with TCP timestamps, for a socket that has not reported its MSS. */
    static final long TYPICAL_MSS_BYTES = 1448;

    /**
     * The rate a loss-based congestion control sustains at loss rate p, in bytes per second. Reno's
     * window averages sqrt(3/(2p)) segments (Mathis et al., 1997); CUBIC's is the larger of that (its
     * Reno-friendly region) and 1.054 (RTT/p)^(3/4), RTT in seconds (RFC 8312, C = 0.4, beta = 0.7).
     */
    static double lossLimitedBytesPerSecond(String congestionControl, long mssBytes, long rttMicros, double lossRate) {
        double rttSeconds = rttMicros / 1e6;
        double segments = Math.sqrt(1.5 / lossRate);
        if ("cubic".equals(congestionControl)) {
            segments = Math.max(segments, 1.054 * Math.pow(rttSeconds / lossRate, 0.75));
        }
        return segments * mssBytes / rttSeconds;
    }

    @Override
    public Optional<Finding> judge(ConnectionFacts facts, TcpsightConfig config) {
        double threshold = config.get(RULE_RETRANSMIT_RATIO);
        Optional<IntervalStats> measured = facts.interval();
        if (measured.isEmpty()
                || measured.get().segmentsOut() < config.get(RULE_MIN_SEGMENTS)
                || measured.get().retransmittedSegments() == 0) {
            return Optional.empty();
        }
        IntervalStats interval = measured.get();
        double loss = interval.retransmitRatio();
        String congestionControl = facts.congestionControl().orElse(null);
        boolean lossBased = "cubic".equals(congestionControl) || "reno".equals(congestionControl);
        double lossLimited = -1;
        if (lossBased && facts.rttMicros() > 0) {
            long mss = facts.sndMssBytes() > 0 ? facts.sndMssBytes() : TYPICAL_MSS_BYTES;
            lossLimited = lossLimitedBytesPerSecond(congestionControl, mss, facts.rttMicros(), loss);
        }
        Optional<Severity> judged = severity(loss, lossLimited, threshold, config);
        if (judged.isEmpty()) {
            return Optional.empty();
        }
        Severity severity = judged.get();
        // This host's own drops on the connection's device in the same interval: the loss is local.
        Optional<HostSignals.Device> device = facts.kernel()
                .hostSignals()
                .flatMap(signals -> signals.deviceOf(facts.identity()
                        .local()
                        .map(InetSocketAddress::getAddress)
                        .orElse(null)));
        long localDrops = device.map(HostSignals.Device::egressDrops).orElse(0L);
        List<Evidence> evidence = evidence(facts, interval, congestionControl, lossLimited, config);
        if (device.isPresent()) {
            evidence.add(new Evidence("lossAt", localDrops > 0 ? "local" : "path", ""));
            evidence.add(new Evidence("localDrops", localDrops, "packets"));
        }
        List<Setting> settings = new ArrayList<>();
        String why;
        if (localDrops > 0) {
            why = String.format(
                    "this host itself dropped %d packets leaving %s in the same interval (qdisc %s): the loss is local, so"
                            + " BBR would not help; see the host-egress-drops finding for the qdisc, driver or allowance"
                            + " to raise",
                    localDrops,
                    device.get().name(),
                    device.get().rootQdisc().isEmpty()
                            ? "unknown"
                            : device.get().rootQdisc());
        } else if (lossBased && facts.rttMicros() >= config.ruleBbrMinRttMicros()) {
            settings.add(Setting.sysctl("net.ipv4.tcp_congestion_control", "bbr"));
            settings.add(new Setting("tcpsight", "tcpsight.congestion", "bbr"));
            why = String.format(
                    "%s at %.2f%% loss sustains at most %.1f Mbit/s over %.1f ms: it shrinks its window at every loss and "
                            + "regrows it by round trips; BBR paces by measured bandwidth and keeps the rate under random "
                            + "loss (host-wide, or opt-in per socket with the agent)",
                    congestionControl, loss * 100, Rates.mbit(lossLimited), facts.rttMillis());
        } else {
            why = "segments are being lost between the hosts; check interface errors and drops on both ends "
                    + "(ip -s link, ethtool -S) and the path's queues";
        }
        Optional<Finding> finding = found(RuleId.RETRANSMISSIONS, severity, facts.identity(), evidence, settings, why);
        if (lossLimited < 0) {
            return finding;
        }
        // BBR paces by the measured bandwidth and keeps the rate under random loss; without it the loss holds the flow
        Limit limit = new Limit(Limit.LOSS, lossLimited, settings.isEmpty() ? lossLimited : Limit.UNBOUNDED);
        return finding.map(named -> named.withLimit(limit));
    }

    /**
     * Costly when a loss-based congestion control at this loss sustains less than the target (the
     * rate it allows, judged as a window would be); otherwise by the share of segments lost.
     */
    private static Optional<Severity> severity(
            double loss, double lossLimited, double threshold, TcpsightConfig config) {
        if (lossLimited >= 0) {
            Optional<Severity> costly = WindowModel.judge(lossLimited, config.targetBytesPerSecond());
            if (costly.isPresent()) {
                return costly;
            }
        }
        if (loss >= threshold) {
            return Optional.of(loss >= 5 * threshold ? Severity.CRITICAL : Severity.WARN);
        }
        return Optional.empty();
    }

    private static List<Evidence> evidence(
            ConnectionFacts facts,
            IntervalStats interval,
            String congestionControl,
            double lossLimited,
            TcpsightConfig config) {
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("retransmitRatio", interval.retransmitRatio(), "ratio of segments"));
        evidence.add(new Evidence("retransmitted", interval.retransmittedSegments(), "segments"));
        evidence.add(new Evidence("sent", interval.segmentsOut(), "segments"));
        if (facts.rttMicros() > 0) {
            evidence.add(rtt(facts));
        }
        if (congestionControl != null) {
            evidence.add(new Evidence("congestionControl", congestionControl, ""));
        }
        if (lossLimited >= 0) {
            evidence.add(new Evidence("lossLimitedRate", Rates.mbit(lossLimited), "Mbit/s"));
            evidence.add(new Evidence("targetRate", Rates.mbit(config.targetBytesPerSecond()), "Mbit/s"));
        }
        return evidence;
    }
}
