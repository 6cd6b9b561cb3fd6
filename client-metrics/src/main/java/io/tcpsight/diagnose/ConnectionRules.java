package io.tcpsight.diagnose;

import static io.tcpsight.config.TcpsightConfig.RULE_MIN_BUSY_RATIO;
import static io.tcpsight.config.TcpsightConfig.RULE_MIN_SEGMENTS;
import static io.tcpsight.config.TcpsightConfig.RULE_RETRANSMIT_RATIO;
import static io.tcpsight.config.TcpsightConfig.RULE_SLOW_HANDSHAKE_MS;
import static io.tcpsight.config.TcpsightConfig.RULE_WINDOW_LIMITED_RATIO;

import io.tcpsight.config.TcpsightConfig;
import io.tcpsight.model.BulkFlow;
import io.tcpsight.model.ConnectionFacts;
import io.tcpsight.model.ConnectionIdentity;
import io.tcpsight.model.HostSignals;
import io.tcpsight.model.IntervalStats;
import io.tcpsight.model.KafkaSettings;
import io.tcpsight.model.KernelVersion;
import io.tcpsight.model.OptionalValues;
import io.tcpsight.model.Role;
import io.tcpsight.tuning.Bdp;
import io.tcpsight.tuning.BdpSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The per-connection rules. Pure functions: the same facts and config always give the same
 * findings; nothing here reads a socket, a file or the clock.
 */
public final class ConnectionRules {
    private ConnectionRules() {}

    private static boolean longPath(ConnectionFacts facts, TcpsightConfig config) {
        return longPath(facts.rttMicros(), config);
    }

    /** Long enough for window and fetch-size rules to speak (tcpsight.rule.min.rtt.ms). */
    static boolean longPath(long rttMicros, TcpsightConfig config) {
        return rttMicros > 0 && rttMicros >= config.ruleMinRttMicros();
    }

    private static Evidence rtt(ConnectionFacts facts) {
        return WindowModel.rtt(facts.rttMicros());
    }

    /** Linux's min and default of net.ipv4.tcp_rmem, kept when a remedy raises its max. */
    private static final String RMEM_MIN_AND_DEFAULT = "4096 131072 ";

    /** net.ipv4.tcp_rmem with a max of at least twice the BDP at the target rate, or nothing when it already is. */
    private static Optional<Setting> rmemFor(ConnectionFacts facts, TcpsightConfig config) {
        return kernelBufferFor(
                "net.ipv4.tcp_rmem", RMEM_MIN_AND_DEFAULT, facts.kernel().tcpRmemMax(), facts, config);
    }

    /** net.ipv4.tcp_wmem likewise. */
    private static Optional<Setting> wmemFor(ConnectionFacts facts, TcpsightConfig config) {
        return kernelBufferFor(
                "net.ipv4.tcp_wmem", "4096 16384 ", facts.kernel().tcpWmemMax(), facts, config);
    }

    /** The sysctl (min and default kept at Linux's) with a max of twice the BDP, unless the max already is. */
    private static Optional<Setting> kernelBufferFor(
            String sysctl, String minAndDefault, OptionalLong max, ConnectionFacts facts, TcpsightConfig config) {
        long needed = BdpSettings.kernelBufferMax(facts.rttMicros(), config.targetBytesPerSecond());
        if (max.orElse(0) >= needed) {
            return Optional.empty();
        }
        return Optional.of(Setting.sysctl(sysctl, minAndDefault + needed));
    }

    private static Evidence flow(BulkFlow flow) {
        return new Evidence("flow", flow.description(), "");
    }

    public static Optional<Finding> smallReceiveBuffer(ConnectionFacts facts, TcpsightConfig config) {
        Optional<Long> ceiling = WindowModel.windowCeiling(facts);
        if (!facts.established() || !longPath(facts, config) || !ceiling.isPresent()) {
            return Optional.empty();
        }
        Optional<WindowModel.Verdict> verdict = WindowModel.judge(
                ceiling.get(), new Evidence("windowCeiling", ceiling.get(), "bytes"), facts.rttMicros(), config);
        if (!verdict.isPresent()) {
            return Optional.empty();
        }
        List<Evidence> evidence = verdict.get().evidence;
        facts.receiveBufferBytes().ifPresent(bytes -> evidence.add(new Evidence("SO_RCVBUF", bytes, "bytes")));
        facts.windowClampBytes().ifPresent(bytes -> evidence.add(new Evidence("TCP_WINDOW_CLAMP", bytes, "bytes")));
        facts.kafka()
                .receiveBufferBytes()
                .ifPresent(bytes -> evidence.add(new Evidence("configuredReceiveBuffer", bytes, "bytes")));
        BulkFlow flow = facts.identity().bulkFlow();
        evidence.add(flow(flow));
        boolean binds = flow.arrivesAt(facts.identity().role());
        // an application that already autotunes is held by the host: the remedy is the sysctl alone
        boolean autotuned = facts.kafka().receiveBufferBytes().orElse(0) < 0;
        Optional<Setting> rmem = rmemFor(facts, config);
        List<Setting> settings = new ArrayList<>();
        if (!autotuned || rmem.isEmpty()) {
            settings.addAll(KafkaKeys.ownReceiveBuffer(facts.identity(), Setting.AUTOTUNE));
        }
        rmem.ifPresent(settings::add);
        String why = autotuned && rmem.isPresent()
                ? String.format(
                        "the receive buffer autotunes, but this host's net.ipv4.tcp_rmem max (%d bytes) lets the window "
                                + "reach at most %d bytes, which moves at most %.1f Mbit/s over %.1f ms: the host limit is "
                                + "the one to raise",
                        facts.kernel().tcpRmemMax().orElse(0),
                        ceiling.get(),
                        verdict.get().ceilingMbit(),
                        facts.rttMillis())
                : String.format(
                        "a window of at most %d bytes moves at most %.1f Mbit/s over %.1f ms; autotuning lets the kernel "
                                + "grow the window to the path's bandwidth-delay product",
                        ceiling.get(), verdict.get().ceilingMbit(), facts.rttMillis());
        return Optional.of(new Finding(
                RuleId.SMALL_RECEIVE_BUFFER,
                binds ? verdict.get().severity : Severity.INFO,
                facts.identity(),
                evidence,
                new Remedy(settings, binds ? why : doesNotBind(why, flow, "arrives at"))));
    }

    /** The why of a buffer finding on a connection whose bulk data does not pass that buffer: info only. */
    private static String doesNotBind(String why, BulkFlow flow, String passes) {
        return why + "; but this connection carries " + flow.description() + ", so no bulk data " + passes
                + " this end and the limit costs nothing now";
    }

    /**
     * This end sends bulk data (a producer's client end, a broker's end of a fetch) through a send
     * buffer fixed by configuration: unacknowledged data for a whole round trip must fit in it.
     */
    public static Optional<Finding> smallSendBuffer(ConnectionFacts facts, TcpsightConfig config) {
        int configured = facts.kafka().sendBufferBytes().orElse(-1);
        BulkFlow flow = facts.identity().bulkFlow();
        if (configured <= 0
                || !facts.established()
                || !longPath(facts, config)
                || !flow.leaves(facts.identity().role())) {
            return Optional.empty();
        }
        Optional<WindowModel.Verdict> verdict = WindowModel.judge(
                configured, new Evidence("configuredSendBuffer", configured, "bytes"), facts.rttMicros(), config);
        if (!verdict.isPresent()) {
            return Optional.empty();
        }
        List<Evidence> evidence = verdict.get().evidence;
        evidence.add(flow(flow));
        List<Setting> settings = new ArrayList<>(KafkaKeys.ownSendBuffer(facts.identity(), Setting.AUTOTUNE));
        wmemFor(facts, config).ifPresent(settings::add);
        return Optional.of(new Finding(
                RuleId.SMALL_SEND_BUFFER,
                verdict.get().severity,
                facts.identity(),
                evidence,
                new Remedy(
                        settings,
                        String.format(
                                "this end sends %s through a send buffer of %d bytes, which holds at most that much unacknowledged "
                                        + "data: %.1f Mbit/s over %.1f ms; autotuning lets the kernel grow it to the bandwidth-delay "
                                        + "product",
                                flow.description(), configured, verdict.get().ceilingMbit(), facts.rttMillis()))));
    }

    /**
     * Linux 6.6 (dfa2f0483360) kept window_clamp at an initial scaling ratio of about 25% when an
     * application set SO_RCVBUF; fixed by 697a6c8cec03 (6.10, 6.6.33) and 05f76b2d634e (6.11,
     * about 6.6.45). The point releases are approximate.
     */
    public static boolean inClampRegressionRange(KernelVersion kernel) {
        if (kernel.major() != 6) {
            return false;
        }
        return (kernel.minor() == 6 && kernel.patch() < 45) || (kernel.minor() >= 7 && kernel.minor() <= 10);
    }

    public static Optional<Finding> kernelWindowClampRegression(ConnectionFacts facts, TcpsightConfig config) {
        Optional<KernelVersion> version = facts.kernel().version();
        if (version.isEmpty() || !WindowModel.fixedReceiveBuffer(facts) || !inClampRegressionRange(version.get())) {
            return Optional.empty();
        }
        KernelVersion kernel = version.get();
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("kernel", kernel.release(), ""));
        evidence.add(new Evidence(
                "configuredReceiveBuffer", facts.kafka().receiveBufferBytes().getAsInt(), "bytes"));
        OptionalInt clamp = facts.windowClampBytes();
        OptionalInt buffer = facts.receiveBufferBytes();
        if (clamp.isPresent() && buffer.isPresent() && buffer.getAsInt() > 0) {
            evidence.add(new Evidence("TCP_WINDOW_CLAMP", clamp.getAsInt(), "bytes"));
            evidence.add(new Evidence("clampShareOfBuffer", (double) clamp.getAsInt() / buffer.getAsInt(), "ratio"));
        }
        BulkFlow flow = facts.identity().bulkFlow();
        evidence.add(flow(flow));
        List<Setting> settings = new ArrayList<>(KafkaKeys.ownReceiveBuffer(facts.identity(), Setting.AUTOTUNE));
        settings.add(new Setting("kernel", "version", ">= 6.6.45 on 6.6, or >= 6.11"));
        return Optional.of(new Finding(
                RuleId.KERNEL_WINDOW_CLAMP_REGRESSION,
                flow.arrivesAt(facts.identity().role()) ? Severity.WARN : Severity.INFO,
                facts.identity(),
                evidence,
                new Remedy(
                        settings,
                        "kernels from about 6.6.0 to 6.6.44 and 6.7 to 6.10 (approximate) clamp the window of a socket with an explicit SO_RCVBUF "
                                + "to about a quarter of the buffer instead of half; autotuning is not affected")));
    }

    public static Optional<Finding> noWindowScaling(ConnectionFacts facts, TcpsightConfig config) {
        if (!facts.established() || facts.windowScaling().orElse(true)) {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("windowScaling", "off", ""));
        evidence.add(new Evidence("windowMax", WindowModel.UNSCALED_WINDOW_MAX, "bytes"));
        facts.sndWindowBytes().ifPresent(bytes -> evidence.add(new Evidence("snd_wnd", bytes, "bytes")));
        BulkFlow flow = facts.identity().bulkFlow();
        evidence.add(flow(flow));
        Severity severity = flow == BulkFlow.NONE ? Severity.INFO : Severity.WARN;
        if (facts.rttMicros() > 0) {
            evidence.add(rtt(facts));
            double ceilingRate = WindowModel.ceilingBytesPerSecond(WindowModel.UNSCALED_WINDOW_MAX, facts.rttMicros());
            evidence.add(new Evidence("ceilingRate", WindowModel.mbit(ceilingRate), "Mbit/s"));
            if (flow != BulkFlow.NONE
                    && longPath(facts, config)
                    && WindowModel.judge(ceilingRate, config.targetBytesPerSecond())
                            .isPresent()) {
                severity = Severity.CRITICAL;
            }
        }
        List<Setting> settings = new ArrayList<>();
        settings.add(Setting.sysctl("net.ipv4.tcp_timestamps", 1));
        settings.add(new Setting("broker", "socket.listen.backlog.size", "1024"));
        settings.add(Setting.sysctl("net.core.somaxconn", 1024));
        settings.add(new Setting("tcpsight", "tcpsight.startup.max.clients.per.second", "20"));
        return Optional.of(
                new Finding(
                        RuleId.NO_WINDOW_SCALING,
                        severity,
                        facts.identity(),
                        evidence,
                        new Remedy(
                                settings,
                                "the connection was set up by a SYN cookie without TCP timestamps (a full listen queue on the broker, and the client or "
                                        + "a middlebox drops timestamps), so window scaling was lost for the connection's life: keep timestamps on at the "
                                        + "client and on the path, and give the broker a listen queue that does not overflow; reconnect to recover")));
    }

    private static boolean busyEnough(ConnectionFacts facts, TcpsightConfig config) {
        return facts.interval()
                .map(interval -> interval.busyRatio() >= config.get(RULE_MIN_BUSY_RATIO))
                .orElse(false);
    }

    /**
     * The peer's window is the limit: the sender spent at least the threshold share of busy time
     * rwnd-limited, or at least half of it while the peer's advertised window over the RTT is
     * below the target rate. The second case is for BBR, which reports rwnd_limited low (about
     * 44% measured in the lab) while fully window-bound.
     */
    public static Optional<Finding> receiveWindowLimited(ConnectionFacts facts, TcpsightConfig config) {
        double threshold = config.get(RULE_WINDOW_LIMITED_RATIO);
        if (!busyEnough(facts, config)) {
            return Optional.empty();
        }
        IntervalStats interval = facts.interval().get();
        OptionalLong peerWindow = facts.sndWindowBytes();
        // what the peer's window allows over the RTT, when both are known
        Optional<Double> ceiling = peerWindow.isPresent() && facts.rttMicros() > 0
                ? Optional.of(WindowModel.ceilingBytesPerSecond(peerWindow.getAsLong(), facts.rttMicros()))
                : Optional.empty();
        Optional<Severity> byRate = ceiling.flatMap(rate -> WindowModel.judge(rate, config.targetBytesPerSecond()));
        boolean peerWindowTooSmall = byRate.isPresent();
        if (interval.rwndLimitedRatio() < threshold
                && !(peerWindowTooSmall && interval.rwndLimitedRatio() >= threshold / 2)) {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("rwndLimited", interval.rwndLimitedRatio(), "ratio of busy time"));
        evidence.add(new Evidence("busy", interval.busyRatio(), "ratio of interval"));
        peerWindow.ifPresent(bytes -> evidence.add(new Evidence("peerWindow", bytes, "bytes")));
        if (facts.rttMicros() > 0) {
            evidence.add(rtt(facts));
        }
        evidence.add(new Evidence("sendRate", WindowModel.mbit(interval.sendRateBytesPerSecond()), "Mbit/s"));
        String peer = facts.identity().role() == Role.BROKER
                ? "the client" + facts.identity().clientId().map(id -> " " + id).orElse("")
                : "the broker";
        // Severity follows the cost, as for small-receive-buffer: a peer window whose rate over the RTT is
        // below a quarter of the target is critical however little of the busy time the sender reports
        // rwnd-limited (BBR reports about half).
        ceiling.ifPresent(rate -> {
            evidence.add(new Evidence("ceilingRate", WindowModel.mbit(rate), "Mbit/s"));
            evidence.add(new Evidence("targetRate", WindowModel.mbit(config.targetBytesPerSecond()), "Mbit/s"));
        });
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
        return Optional.of(new Finding(
                RuleId.RECEIVE_WINDOW_LIMITED,
                severity,
                facts.identity(),
                evidence,
                new Remedy(
                        settings,
                        String.format(
                                "%.0f%% of the time this end had data to send, %s's advertised receive window was full; its receive buffer "
                                        + "is the limit, so let it autotune%s",
                                interval.rwndLimitedRatio() * 100,
                                peer,
                                peerRmem
                                        ? ", and where it already does, its host's net.ipv4.tcp_rmem max holds the window "
                                                + "down: raise it there"
                                        : ""))));
    }

    public static Optional<Finding> sendBufferLimited(ConnectionFacts facts, TcpsightConfig config) {
        double threshold = config.get(RULE_WINDOW_LIMITED_RATIO);
        if (!busyEnough(facts, config) || facts.interval().get().sndbufLimitedRatio() < threshold) {
            return Optional.empty();
        }
        IntervalStats interval = facts.interval().get();
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("sndbufLimited", interval.sndbufLimitedRatio(), "ratio of busy time"));
        evidence.add(new Evidence("busy", interval.busyRatio(), "ratio of interval"));
        if (facts.rttMicros() > 0) {
            evidence.add(rtt(facts));
        }
        evidence.add(new Evidence("sendRate", WindowModel.mbit(interval.sendRateBytesPerSecond()), "Mbit/s"));
        List<Setting> settings = new ArrayList<>(KafkaKeys.ownSendBuffer(facts.identity(), Setting.AUTOTUNE));
        wmemFor(facts, config).ifPresent(settings::add);
        return Optional.of(new Finding(
                RuleId.SEND_BUFFER_LIMITED,
                Severity.WARN,
                facts.identity(),
                evidence,
                new Remedy(
                        settings,
                        String.format(
                                "%.0f%% of busy time this end could not send because its own send buffer was full; unacknowledged "
                                        + "data for a whole round trip must fit in it",
                                interval.sndbufLimitedRatio() * 100))));
    }

    /** A full-sized segment on Ethernet with TCP timestamps, for a socket that has not reported its MSS. */
    private static final long TYPICAL_MSS_BYTES = 1448;

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

    /**
     * Loss judged by what it costs: on a loss-based congestion control (CUBIC, Reno) the rate the
     * measured loss allows on this path, against the target; on any other, or when that rate is
     * enough, the retransmitted share against tcpsight.rule.retransmit.ratio.
     */
    public static Optional<Finding> retransmissions(ConnectionFacts facts, TcpsightConfig config) {
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
        Optional<Severity> costly = Optional.empty();
        if (lossBased && facts.rttMicros() > 0) {
            long mss = facts.sndMssBytes() > 0 ? facts.sndMssBytes() : TYPICAL_MSS_BYTES;
            lossLimited = lossLimitedBytesPerSecond(congestionControl, mss, facts.rttMicros(), loss);
            costly = WindowModel.judge(lossLimited, config.targetBytesPerSecond());
        }
        Severity severity;
        if (costly.isPresent()) {
            severity = costly.get();
        } else if (loss >= threshold) {
            severity = loss >= 5 * threshold ? Severity.CRITICAL : Severity.WARN;
        } else {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("retransmitRatio", loss, "ratio of segments"));
        evidence.add(new Evidence("retransmitted", interval.retransmittedSegments(), "segments"));
        evidence.add(new Evidence("sent", interval.segmentsOut(), "segments"));
        if (facts.rttMicros() > 0) {
            evidence.add(rtt(facts));
        }
        if (congestionControl != null) {
            evidence.add(new Evidence("congestionControl", congestionControl, ""));
        }
        if (lossLimited >= 0) {
            evidence.add(new Evidence("lossLimitedRate", WindowModel.mbit(lossLimited), "Mbit/s"));
            evidence.add(new Evidence("targetRate", WindowModel.mbit(config.targetBytesPerSecond()), "Mbit/s"));
        }
        // This host's own drops on the connection's device in the same interval: the loss is local.
        Optional<HostSignals.Device> device = facts.kernel()
                .hostSignals()
                .flatMap(signals -> signals.deviceOf(
                        facts.identity().local() == null
                                ? null
                                : facts.identity().local().getAddress()));
        long localDrops = device.map(HostSignals.Device::egressDrops).orElse(0L);
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
                    congestionControl, loss * 100, WindowModel.mbit(lossLimited), facts.rttMillis());
        } else {
            why = "segments are being lost between the hosts; check interface errors and drops on both ends "
                    + "(ip -s link, ethtool -S) and the path's queues";
        }
        return Optional.of(
                new Finding(RuleId.RETRANSMISSIONS, severity, facts.identity(), evidence, new Remedy(settings, why)));
    }

    public static Optional<Finding> slowHandshake(ConnectionFacts facts, TcpsightConfig config) {
        long threshold = config.get(RULE_SLOW_HANDSHAKE_MS);
        long handshakeMillis = facts.handshakeMillis().orElse(0);
        if (handshakeMillis < threshold) {
            return Optional.empty();
        }
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(new Evidence("handshake", handshakeMillis, "ms"));
        if (facts.rttMicros() > 0) {
            evidence.add(rtt(facts));
        }
        Severity severity = handshakeMillis >= 3 * threshold ? Severity.CRITICAL : Severity.WARN;
        List<Setting> settings = List.of(
                new Setting("broker", "socket.listen.backlog.size", "1024"),
                Setting.sysctl("net.core.somaxconn", 1024),
                new Setting("tcpsight", "tcpsight.startup.max.clients.per.second", "20"));
        return Optional.of(
                new Finding(
                        RuleId.SLOW_HANDSHAKE,
                        severity,
                        facts.identity(),
                        evidence,
                        new Remedy(
                                settings,
                                "a connect that takes 1 s, 3 s or 7 s more than the RTT waited for SYN retransmissions: the broker's listen queue "
                                        + "(min of socket.listen.backlog.size and net.core.somaxconn) overflowed and dropped the SYN")));
    }

    /**
     * The share of the target a fetcher must be able to reach. A client waits for each fetch
     * response before it asks again, so a response of B bytes takes a round trip plus its own time
     * on the line: on a line as fast as the target, four BDPs a fetch reach 80% of it, the
     * sizing's nine 90%.
     */
    static final double FETCH_CEILING_SHARE = 0.8;
    /**
     * Busy this share of an interval or more, neither window- nor buffer-limited, a fetcher fetches
     * back to back: it moves what its sizes allow.
     */
    static final double FETCHING_BACK_TO_BACK = 0.5;

    /**
     * A fetcher that moved at least this share of its fetch ceiling (of its fetch size a cycle)
     * got full responses: its sizes held it, not a topic with little new data.
     */
    static final double FULL_RESPONSE_SHARE = 0.5;

    /**
     * fetch-size-below-bdp: a fetcher's sizes cap it below the target on this path. On the
     * client's side from its config; on the broker's side (the agent) from the sizes its Fetch
     * requests asked for, so any client library, and a follower's replica fetcher, is judged by
     * what it sent, in its own keys. Below one BDP a fetch the cap holds on any line. From one to
     * four, it holds where the line is about as fast as the target, which the flow itself shows:
     * busy fetching back to back, full responses, and less than the share of the target moved.
     */
    public static Optional<Finding> fetchSizeBelowBdp(ConnectionFacts facts, TcpsightConfig config) {
        KafkaSettings kafka = facts.kafka();
        // a consumer's coordinator and bootstrap connections fetch nothing
        if (!facts.identity().bulkFlow().arrivesAt(Role.CLIENT)
                || kafka.fetchMaxBytes().isEmpty()
                || kafka.maxPartitionFetchBytes().isEmpty()
                || !longPath(facts, config)) {
            return Optional.empty();
        }
        int partitions = Math.max(1, kafka.partitionsPerBroker().orElse(1));
        double target = config.targetBytesPerSecond();
        long bdp = Bdp.bytes(facts.rttMicros(), target);
        long perFetch = Math.min(
                kafka.fetchMaxBytes().getAsLong(),
                kafka.maxPartitionFetchBytes().getAsLong() * partitions);
        // one response a cycle: a round trip plus its own time on a line as fast as the target
        double cycleSeconds = facts.rttMicros() / 1e6 + perFetch / target;
        double ceiling = perFetch / cycleSeconds;
        if (ceiling >= FETCH_CEILING_SHARE * target) {
            return Optional.empty();
        }
        Optional<IntervalStats> fetching = facts.interval().filter(interval -> {
            double moved = fetchedRate(facts, interval);
            return fetchBoundRatio(interval) >= FETCHING_BACK_TO_BACK
                    && moved < FETCH_CEILING_SHARE * target
                    && moved >= FULL_RESPONSE_SHARE * ceiling;
        });
        if (perFetch >= bdp && fetching.isEmpty()) {
            return Optional.empty();
        }
        BdpSettings.Recommendation recommended = BdpSettings.recommend(new BdpSettings.Input(
                facts.rttMicros(),
                config.targetBytesPerSecond(),
                partitions,
                OptionalValues.orNull(facts.kernel().tcpRmemMax()),
                null,
                config.get(TcpsightConfig.FETCH_RECORD_BYTES)));
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(rtt(facts));
        evidence.add(new Evidence("bdp", bdp, "bytes"));
        evidence.add(new Evidence("bytesPerFetch", perFetch, "bytes"));
        evidence.add(new Evidence("partitionsPerBroker", partitions, "count"));
        evidence.add(new Evidence("fetchCeilingRate", WindowModel.mbit(ceiling), "Mbit/s"));
        fetching.ifPresent(interval -> {
            double moved = fetchedRate(facts, interval);
            evidence.add(new Evidence("fetchBound", fetchBoundRatio(interval), "ratio of interval"));
            evidence.add(new Evidence("fetchRate", WindowModel.mbit(moved), "Mbit/s"));
            evidence.add(new Evidence("bytesPerCycle", Math.round(moved * cycleSeconds), "bytes"));
        });
        List<Setting> settings = new ArrayList<>();
        settings.addAll(
                KafkaKeys.client(facts.identity(), "fetch.max.bytes", Long.toString(recommended.fetchMaxBytes())));
        settings.addAll(KafkaKeys.client(
                facts.identity(), "max.partition.fetch.bytes", Long.toString(recommended.maxPartitionFetchBytes())));
        settings.addAll(
                KafkaKeys.client(facts.identity(), "max.poll.records", Integer.toString(recommended.maxPollRecords())));
        return Optional.of(new Finding(
                RuleId.FETCH_SIZE_BELOW_BDP,
                Severity.WARN,
                facts.identity(),
                evidence,
                new Remedy(
                        settings,
                        String.format(
                                "a fetcher waits for each fetch response before it asks again, so %d bytes per fetch take"
                                        + " a %.1f ms round trip plus their own time on the line: at most %.1f Mbit/s on a"
                                        + " line as fast as the target, below %.0f%% of its %.1f Mbit/s",
                                perFetch,
                                facts.rttMillis(),
                                WindowModel.mbit(ceiling),
                                FETCH_CEILING_SHARE * 100,
                                WindowModel.mbit(config.targetBytesPerSecond())))));
    }

    /**
     * The share of the interval the connection had data in flight with neither the peer's window
     * nor the send buffer holding it: a consumer that processes slowly fills its window instead.
     */
    private static double fetchBoundRatio(IntervalStats interval) {
        long free = interval.busyMicros() - interval.rwndLimitedMicros() - interval.sndbufLimitedMicros();
        return interval.seconds() <= 0 ? 0 : free / (interval.seconds() * 1e6);
    }

    /** What the fetch responses moved over the interval: sent at the broker's end, received at the client's. */
    private static double fetchedRate(ConnectionFacts facts, IntervalStats interval) {
        return facts.identity().role() == Role.BROKER
                ? interval.sendRateBytesPerSecond()
                : interval.receiveRateBytesPerSecond();
    }

    /** broker-unreachable: no TCP handshake to a broker completed (the doctor's probe). */
    public static Finding brokerUnreachable(ConnectionIdentity identity, String failure) {
        return new Finding(
                RuleId.BROKER_UNREACHABLE,
                Severity.CRITICAL,
                identity,
                List.of(new Evidence("error", String.valueOf(failure), "")),
                new Remedy(
                        List.of(
                                new Setting("client", "bootstrap.servers", "an address this host can reach"),
                                new Setting("broker", "advertised.listeners", "addresses clients can reach")),
                        "no TCP handshake completed: check the address, the broker's advertised.listeners and firewalls on the path"));
    }
}
