package io.tcpsight.internal.diagnose.connection;

import static io.tcpsight.internal.config.TcpsightConfig.RULE_WINDOW_LIMITED_RATIO;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.RMEM_MIN_AND_DEFAULT;
import static io.tcpsight.internal.diagnose.connection.ConnectionRuleParts.busyEnough;
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
import io.tcpsight.internal.diagnose.keys.KafkaKeys;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.model.PushedClientMetrics.Figure;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.tuning.BdpSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The peer's window is the limit: the sender spent at least the threshold share of busy time
 * rwnd-limited, or, while the peer's advertised window over the RTT is below the target rate,
 * at least half of that share, or it moved at least the threshold share of what that window
 * allows over the RTT. BBR reports rwnd_limited low (about 44% measured in the lab) while fully
 * window-bound. And the kernel counts rwnd-limited time only while unsent data waits at the
 * window's edge: a sender whose own send buffer holds little beyond the window (a broker at
 * Kafka's 100 KiB socket.send.buffer.bytes, writing a fetch response as its buffer frees) often
 * has none waiting, and that time is counted busy, though all it sent was what the window let
 * through. Measured in the lab: the broker's end of a 64 KiB consumer 100 ms away moved 69-99%
 * of its window's rate in every round while the kernel counted it rwnd-limited 16-48% of busy
 * time, below half the threshold in a quarter of the rounds. A window that moves the target over the
 * path's own round trip (min_rtt) is no finding, however much of the time it was full: under a
 * loss-based congestion control the sender fills the line's queue, the round trip grows with it,
 * and a window sized for the quiet path is full while the flow is at the target. Naming it would
 * ask for a second window change that buys only a longer queue. (On a path shorter than
 * tcpsight.rule.min.rtt.ms any window moves the target, and a full one is a reader that does not
 * keep up: there the share of time decides, as before.)
 */
final class ReceiveWindowLimited implements ConnectionRule {
    static final ConnectionRule RULE = new ReceiveWindowLimited();

    private ReceiveWindowLimited() {}

    @Override
    public Optional<Finding> judge(ConnectionFacts facts, TcpsightConfig config) {
        double threshold = config.get(RULE_WINDOW_LIMITED_RATIO);
        if (!busyEnough(facts, config)) {
            return Optional.empty();
        }
        IntervalStats interval = facts.interval().get();
        OptionalLong peerWindow = facts.sndWindowBytes();
        // what the peer's window allows over the RTT, when both are known
        Optional<Double> ceiling = peerWindow.isPresent() && facts.rttMicros() > 0
                ? Optional.of(Rates.ceilingBytesPerSecond(peerWindow.getAsLong(), facts.rttMicros()))
                : Optional.empty();
        Optional<Severity> byRate = ceiling.flatMap(rate -> WindowModel.judge(rate, config.targetBytesPerSecond()));
        if (ceiling.isPresent() && byRate.isEmpty() && ConnectionRuleParts.longPath(facts, config)) {
            // the window covers the path at the target: what it does not cover is a queue. On a short path any
            // window covers it, and a full one is a reader that does not keep up, which the share of time says
            return Optional.empty();
        }
        boolean peerWindowTooSmall = byRate.isPresent();
        // what the flow moved of what the window allows over the RTT, where the window is below the target and open (a
        // closed window allows nothing: a flow past it is the time share's to judge)
        OptionalDouble windowUsed = peerWindowTooSmall && ceiling.get() > 0
                ? OptionalDouble.of(interval.sendRateBytesPerSecond() / ceiling.get())
                : OptionalDouble.empty();
        boolean fullByTime = interval.rwndLimitedRatio() >= threshold
                || (peerWindowTooSmall && interval.rwndLimitedRatio() >= threshold / 2);
        boolean fullByRate = windowUsed.isPresent() && windowUsed.getAsDouble() >= threshold;
        if (!fullByTime && !fullByRate) {
            return Optional.empty();
        }
        OptionalLong widest = facts.widestSndWindowBytes();
        if (widest.isPresent()
                && facts.rttMicros() > 0
                && WindowModel.judge(
                                Rates.ceilingBytesPerSecond(widest.getAsLong(), facts.rttMicros()),
                                config.targetBytesPerSecond())
                        .isEmpty()) {
            // a reader that stopped reading shrinks the window it advertises: the rate against the window at this
            // sample says nothing of it, only the time the window was full does
            return fullByTime ? Optional.of(readerNotBuffer(facts, interval, widest.getAsLong())) : Optional.empty();
        }
        if (stillOpening(facts, config) || closedBeforeItsWidthWasSeen(facts, interval)) {
            return Optional.empty();
        }
        return bufferNotReader(facts, config, interval, ceiling, byRate, windowUsed, fullByTime);
    }

    /**
     * The peer's receive buffer is the limit: the evidence, the severity (by the window's cost, or
     * the time it was full), the peer's buffer key and its host's tcp_rmem, and the limit it names.
     */
    private static Optional<Finding> bufferNotReader(
            ConnectionFacts facts,
            TcpsightConfig config,
            IntervalStats interval,
            Optional<Double> ceiling,
            Optional<Severity> byRate,
            OptionalDouble windowUsed,
            boolean fullByTime) {
        double threshold = config.get(RULE_WINDOW_LIMITED_RATIO);
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("rwndLimited", interval.rwndLimitedRatio(), "ratio of busy time"));
        evidence.add(new Evidence("busy", interval.busyRatio(), "ratio of interval"));
        facts.sndWindowBytes().ifPresent(bytes -> evidence.add(new Evidence("peerWindow", bytes, "bytes")));
        // how far the window widened since the widest of the samples before: a buffer holds it at 1, a kernel
        // still opening it widens it (stillOpening waits where it at least doubled)
        facts.peerWindowGrowth()
                .ifPresent(growth -> evidence.add(new Evidence("peerWindowGrowth", growth, "ratio of widest before")));
        if (facts.rttMicros() > 0) {
            evidence.add(rtt(facts));
        }
        evidence.add(new Evidence("sendRate", Rates.mbit(interval.sendRateBytesPerSecond()), "Mbit/s"));
        // the consumer's own lag, where it pushed on this socket. It is its largest over every partition on every
        // broker: the text says the lag grows behind this window only where the consumer's figures agree (ClientWords)
        ClientWords.add(
                facts,
                evidence,
                Figure.RECORDS_LAG_MAX,
                Figure.CONSUMER_INCOMING_BYTE_RATE,
                Figure.CONSUMER_INCOMING_BYTE_RATE_OTHER_BROKERS,
                Figure.POLL_IDLE_RATIO_AVG);
        ClientWords.addLagGrowth(facts, evidence);
        String peer = peerName(facts);
        // Severity follows the cost, as for small-receive-buffer: a peer window whose rate over the RTT is
        // below a quarter of the target is critical however little of the busy time the sender reports
        // rwnd-limited (BBR reports about half).
        ceiling.ifPresent(rate -> {
            evidence.add(new Evidence("ceilingRate", Rates.mbit(rate), "Mbit/s"));
            evidence.add(new Evidence("targetRate", Rates.mbit(config.targetBytesPerSecond()), "Mbit/s"));
        });
        windowUsed.ifPresent(share -> evidence.add(new Evidence("windowUsed", share, "ratio of ceilingRate")));
        Severity severity = byRate.orElse(Severity.WARN) == Severity.CRITICAL
                        || interval.rwndLimitedRatio() >= Math.min(1, threshold + (1 - threshold) * 0.8)
                ? Severity.CRITICAL
                : Severity.WARN;
        List<Setting> settings = new ArrayList<>(KafkaKeys.peerReceiveBuffer(facts.identity(), Setting.AUTOTUNE));
        boolean peerRmem = facts.rttMicros() > 0;
        if (peerRmem) {
            // this end cannot read the peer's sysctl: an autotuned buffer stops at the peer host's tcp_rmem max
            long needed = BdpSettings.kernelBufferMax(facts.rttMicros(), config.targetBytesPerSecond());
            settings.add(Setting.sysctl("net.ipv4.tcp_rmem", RMEM_MIN_AND_DEFAULT + needed)
                    .withNote("on " + peer + "'s host, where its max is below " + needed));
        }
        // the peer's window over the RTT where both are known, else what the full window let through; once the peer
        // autotunes up to the tcp_rmem max named for its host, the window holds twice the BDP at the target
        Limit limit = new Limit(
                Limit.RECEIVE_WINDOW,
                ceiling.orElse(interval.sendRateBytesPerSecond()),
                peerRmem
                        ? Limit.autotunedWindowRate(
                                BdpSettings.kernelBufferMax(facts.rttMicros(), config.targetBytesPerSecond()),
                                facts.rttMicros())
                        : Limit.UNBOUNDED);
        return found(
                        RuleId.RECEIVE_WINDOW_LIMITED,
                        severity,
                        facts.identity(),
                        evidence,
                        settings,
                        why(facts, config, interval, peer, ceiling, windowUsed, fullByTime, peerRmem)
                                + ClientWords.lagBehindThisWindow(facts))
                .map(finding -> finding.withLimit(limit));
    }

    /** Why the buffer is the limit: the time the window was full, or what it moves against the target. */
    private static String why(
            ConnectionFacts facts,
            TcpsightConfig config,
            IntervalStats interval,
            String peer,
            Optional<Double> ceiling,
            OptionalDouble windowUsed,
            boolean fullByTime,
            boolean peerRmem) {
        return String.format(
                "%s; its receive buffer is the limit, so let it autotune%s",
                fullByTime
                        ? String.format(
                                "%.0f%% of the time this end had data to send, %s's advertised receive window "
                                        + "was full",
                                interval.rwndLimitedRatio() * 100, peer)
                        : String.format(
                                "%s's advertised receive window moves %.1f Mbit/s over %.1f ms, below the "
                                        + "%.0f Mbit/s target, and this end moved %s; the kernel counted the "
                                        + "window full only %.0f%% of the time this end had data to send, as "
                                        + "it does when little waits beyond the window",
                                peer,
                                Rates.mbit(ceiling.get()),
                                facts.rttMillis(),
                                Rates.mbit(config.targetBytesPerSecond()),
                                windowUsed.getAsDouble() >= 1
                                        ? "all of that (the window at this sample is narrower than it was)"
                                        : String.format("%.0f%% of that", windowUsed.getAsDouble() * 100),
                                interval.rwndLimitedRatio() * 100),
                peerRmem
                        ? ", and where it already does, its host's net.ipv4.tcp_rmem max holds the window "
                                + "down: raise it there"
                        : "");
    }

    /** The other end as a finding names it: the client by its client.id, or the broker. */
    private static String peerName(ConnectionFacts facts) {
        return facts.identity().role() == Role.BROKER
                ? "the client" + facts.identity().clientId().map(id -> " " + id).orElse("")
                : "the broker";
    }

    /**
     * The peer's window is opening (at this sample at least twice the widest of the samples before)
     * and its window scale lets it grow to one that moves the target over this path: its buffer
     * autotunes and is opening (the first round trips of a bulk flow on a connection, when the
     * receiver's kernel doubles the window each round trip in which the sender filled it), so a window
     * small at this sample is no buffer to name yet. It is judged again at the next sample: once the
     * window stops doubling, a window still short is the buffer, or the peer host's tcp_rmem max.
     * Doubling bounds the wait: a window that creeps up is named, and no connection waits more times
     * than its window can double up to the scale's widest. A buffer set before connecting, as Kafka's
     * clients and brokers set theirs, also fixes the scale the peer's kernel chose at the handshake
     * (1 for 64 KiB, whose widest window moves 10.5 Mbit/s at 100 ms), so it is never waited for.
     */
    private static boolean stillOpening(ConnectionFacts facts, TcpsightConfig config) {
        OptionalInt scale = facts.peerWindowScale();
        if (facts.peerWindowGrowth().orElse(0) < 2
                || scale.isEmpty()
                || !facts.windowScaling().orElse(false)
                || facts.rttMicros() <= 0) {
            return false;
        }
        long widestPossible = 65_535L << Math.min(scale.getAsInt(), 14);
        return WindowModel.judge(
                        Rates.ceilingBytesPerSecond(widestPossible, facts.rttMicros()), config.targetBytesPerSecond())
                .isEmpty();
    }

    /**
     * The most samples in a row a window narrower than the flow through it waits to be judged. The
     * longest reading pause measured behind a dedicated MirrorMaker 2 at the flow's start spanned
     * two samples of 2 s (234,880 bytes, then 2,944, with 60.5 and 50.6 Mbit/s moved at 100 ms,
     * then 3.3 MB; 2026-12-01): a third sample in a row is judged, so that a small buffer behind a
     * reader that is never caught idle is still named.
     */
    static final int MOST_SAMPLES_WAITED = 2;

    /**
     * The peer's window at this sample is narrower than what this end moved through it a round trip
     * over this interval, and so was every window sampled before: the buffer let more through than
     * any sample has shown (a window autotuning open between samples) and then closed on data its
     * reader had not read yet. Whether the buffer is the limit is not known at this sample, so it is
     * not judged, for at most {@link #MOST_SAMPLES_WAITED} samples in a row: a sample that finds the
     * window as wide as the flow (the widest before then covers it) or a third narrow one is judged.
     * Measured at the far broker's end of a dedicated MirrorMaker 2's replication consumer in the
     * flow's first seconds, while the task waited to forward its first polls to the target
     * (2026-12-01): windows of 5,888 bytes after a widest of 268,613 with 65.5 Mbit/s moved at 100
     * ms (816 KB a round trip), and 2,944 after 234,880 with 50.6, then 3.3 MB; each was named as
     * the buffer, critical, with a tcp_rmem already in effect.
     */
    private static boolean closedBeforeItsWidthWasSeen(ConnectionFacts facts, IntervalStats interval) {
        OptionalLong widestEarlier = facts.widestEarlierSndWindowBytes();
        // the count says this sample's window is narrower than the flow (the sampler judged it from the same
        // window, interval and round trip); without it the wait would have no bound: judged as ever
        int inARow = facts.samplesNarrowerThanTheFlow().orElse(0);
        if (widestEarlier.isEmpty() || inARow < 1 || inARow > MOST_SAMPLES_WAITED) {
            return false;
        }
        return widestEarlier.getAsLong() < interval.sendRateBytesPerSecond() * facts.rttMicros() / 1e6;
    }

    /**
     * The peer has advertised a window that moves the target over the path's round trip, so its
     * receive buffer has opened wide enough: a window full at this sample is unread data, a reader
     * that stopped reading for a while (a classic consumer reads its socket only inside poll(),
     * a MirrorMaker 2 or Connect task only between its sends to the target, a follower between its
     * log appends). A larger buffer would absorb longer pauses but not make the reader read more,
     * so no buffer or sysctl is named, and it is a warning: what holds the flow is the reader's own
     * work, which the evidence shows.
     */
    private static Finding readerNotBuffer(ConnectionFacts facts, IntervalStats interval, long widestWindow) {
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("rwndLimited", interval.rwndLimitedRatio(), "ratio of busy time"));
        evidence.add(new Evidence("busy", interval.busyRatio(), "ratio of interval"));
        facts.sndWindowBytes().ifPresent(bytes -> evidence.add(new Evidence("peerWindow", bytes, "bytes")));
        evidence.add(new Evidence("widestPeerWindow", widestWindow, "bytes"));
        evidence.add(rtt(facts));
        evidence.add(new Evidence("sendRate", Rates.mbit(interval.sendRateBytesPerSecond()), "Mbit/s"));
        ClientWords.add(facts, evidence, Figure.RECORDS_LAG_MAX);
        ClientWords.addLagGrowth(facts, evidence);
        String peer = peerName(facts);
        return found(
                        RuleId.RECEIVE_WINDOW_LIMITED,
                        Severity.WARN,
                        facts.identity(),
                        evidence,
                        List.of(),
                        String.format(
                                "%.0f%% of the time this end had data to send, %s's advertised receive window was full, but it"
                                        + " has advertised %d bytes, enough for the target over %.1f ms: its buffer is not the"
                                        + " limit, its reader is; it stops reading for a while (a consumer reads only inside"
                                        + " poll(), a Connect or MirrorMaker 2 task only between its sends to the target, a"
                                        + " follower between its log appends), and a larger buffer would only hold more of"
                                        + " what it has not read",
                                interval.rwndLimitedRatio() * 100, peer, widestWindow, facts.rttMillis()))
                .orElseThrow();
    }
}
