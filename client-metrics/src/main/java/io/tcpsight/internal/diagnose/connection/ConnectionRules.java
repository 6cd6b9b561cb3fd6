package io.tcpsight.internal.diagnose.connection;

import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Remedy;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.diagnose.finding.Setting;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.ConnectionIdentity;
import java.util.List;

/**
 * The per-connection rules, each a type of its own behind {@link ConnectionRule}, listed here in
 * the order a round runs them; a table or a caller judges one through its type's {@code RULE}.
 * Pure functions: the same facts and config always give the same findings; nothing here reads a
 * socket, a file or the clock.
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
            ProducePipelineBelowBdp.RULE,
            RequestLatencyBeyondPath.RULE);

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
