package io.tcpsight.doctor;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.connection.ConnectionRules;
import io.tcpsight.internal.diagnose.connection.SlowHandshake;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.sampling.HandshakeProbe;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** The path to each broker: a few handshakes, their kernel RTT and how long connect() took. */
final class BrokerPaths {
    static final int HANDSHAKES_PER_BROKER = 3;

    /** One broker as the cluster advertises it, and what the probe saw. */
    record BrokerPath(String nodeId, InetSocketAddress address, HandshakeProbe.Result probe, String failure) {
        boolean reachable() {
            return probe != null;
        }

        /** The handshake RTT the kernel measured. */
        long rttMicros() {
            return probe.rttMicros();
        }

        ConnectionIdentity identity(DoctorClient client) {
            // the client's bulk data flows as its kind sends it: fetch responses to a consumer, produce requests out
            ConnectionIdentity identity = client.named(ConnectionIdentity.of(Role.CLIENT, null, address));
            return nodeId == null ? identity : identity.withNodeId(nodeId);
        }
    }

    private BrokerPaths() {}

    static BrokerPath probe(String nodeId, InetSocketAddress address, Duration timeout) {
        try {
            return new BrokerPath(nodeId, address, HandshakeProbe.probe(address, HANDSHAKES_PER_BROKER, timeout), null);
        } catch (IOException failed) {
            return new BrokerPath(nodeId, address, null, failed.getMessage());
        }
    }

    /** The reachable broker with the longest RTT: the path that limits a client of the whole cluster. */
    static Optional<BrokerPath> slowest(List<BrokerPath> brokers) {
        return brokers.stream().filter(BrokerPath::reachable).max(Comparator.comparingLong(BrokerPath::rttMicros));
    }

    /** slow-handshake from the slowest of the probe's handshakes, broker-unreachable for a broker with none. */
    static List<Finding> findings(List<BrokerPath> brokers, DoctorClient client, TcpsightConfig config) {
        List<Finding> findings = new ArrayList<>();
        for (BrokerPath broker : brokers) {
            if (broker.reachable()) {
                ConnectionFacts facts = ConnectionFacts.builder(broker.identity(client))
                        .rttMicros(broker.rttMicros())
                        .handshakeMillis(broker.probe().slowestHandshakeMicros() / 1000)
                        .build();
                SlowHandshake.RULE.judge(facts, config).ifPresent(findings::add);
            } else {
                findings.add(ConnectionRules.brokerUnreachable(broker.identity(client), broker.failure()));
            }
        }
        return findings;
    }
}
