package io.tcpsight.internal.diagnose;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KernelVersion;
import java.util.List;
import java.util.Optional;

/**
 * The per-connection rules, each a type of its own behind {@link ConnectionRule}, listed here in
 * the order a round runs them. Pure functions: the same facts and config always give the same
 * findings; nothing here reads a socket, a file or the clock.
 */
public final class ConnectionRules {
    private ConnectionRules() {}

    /** Every per-connection rule, in the order a round runs them. */
    public static final List<ConnectionRule> ALL = List.of(
            SmallReceiveBuffer.RULE,
            KernelWindowClampRegression.RULE,
            NoWindowScaling.RULE,
            ReceiveWindowLimited.RULE,
            SendBufferLimited.RULE,
            SmallSendBuffer.RULE,
            Retransmissions.RULE,
            SlowHandshake.RULE,
            FetchSizeBelowBdp.RULE,
            ProduceRules::producePipelineBelowBdp,
            RequestLatencyBeyondPath.RULE);

    public static Optional<Finding> smallReceiveBuffer(ConnectionFacts facts, TcpsightConfig config) {
        return SmallReceiveBuffer.RULE.judge(facts, config);
    }

    public static Optional<Finding> kernelWindowClampRegression(ConnectionFacts facts, TcpsightConfig config) {
        return KernelWindowClampRegression.RULE.judge(facts, config);
    }

    public static Optional<Finding> noWindowScaling(ConnectionFacts facts, TcpsightConfig config) {
        return NoWindowScaling.RULE.judge(facts, config);
    }

    public static Optional<Finding> receiveWindowLimited(ConnectionFacts facts, TcpsightConfig config) {
        return ReceiveWindowLimited.RULE.judge(facts, config);
    }

    public static Optional<Finding> sendBufferLimited(ConnectionFacts facts, TcpsightConfig config) {
        return SendBufferLimited.RULE.judge(facts, config);
    }

    public static Optional<Finding> smallSendBuffer(ConnectionFacts facts, TcpsightConfig config) {
        return SmallSendBuffer.RULE.judge(facts, config);
    }

    public static Optional<Finding> retransmissions(ConnectionFacts facts, TcpsightConfig config) {
        return Retransmissions.RULE.judge(facts, config);
    }

    public static Optional<Finding> slowHandshake(ConnectionFacts facts, TcpsightConfig config) {
        return SlowHandshake.RULE.judge(facts, config);
    }

    public static Optional<Finding> fetchSizeBelowBdp(ConnectionFacts facts, TcpsightConfig config) {
        return FetchSizeBelowBdp.RULE.judge(facts, config);
    }

    public static boolean inClampRegressionRange(KernelVersion kernel) {
        return KernelWindowClampRegression.inClampRegressionRange(kernel);
    }

    static double lossLimitedBytesPerSecond(String congestionControl, long mssBytes, long rttMicros, double lossRate) {
        return Retransmissions.lossLimitedBytesPerSecond(congestionControl, mssBytes, rttMicros, lossRate);
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
