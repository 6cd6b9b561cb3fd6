package io.tcpsight.doctor;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.FindingsBoard;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.sampling.CensusTracker;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.ProcessSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Judges the connections a Kafka client with the user's config opened from this process: found
 * by the process census, sampled once through TCP_INFO, and run through the same connection
 * rules the agent and the plugin use, with the user's settings. One finding per rule and broker.
 */
final class ClientConnectionJudge {
    private ClientConnectionJudge() {}

    static List<Finding> judge(
            Map<InetSocketAddress, String> nodeIds,
            DoctorClient client,
            KafkaSettings settings,
            KernelFacts kernel,
            TcpsightConfig config)
            throws IOException {
        ConnectionRegistry registry = new ConnectionRegistry(1024);
        FindingsBoard board = new FindingsBoard(Long.MAX_VALUE, finding -> {});
        ConnectionMonitor monitor =
                new ConnectionMonitor(registry, config, connection -> settings, () -> kernel, board);
        Map<String, String> byAddress = new HashMap<>();
        nodeIds.forEach((address, node) -> byAddress.put(ConnectionIdentity.address(address), node));
        monitor.addNamer(sampled -> {
            for (TrackedConnection connection : sampled) {
                String node = byAddress.get(connection
                        .identity()
                        .remote()
                        .map(ConnectionIdentity::address)
                        .orElse(null));
                if (node != null) {
                    connection.updateIdentity(identity -> identity.withNodeId(node));
                }
            }
        });
        CensusTracker census = new CensusTracker(
                registry,
                (ProcessSocket socket) -> byAddress.containsKey(ConnectionIdentity.address(socket.remote())),
                // the doctor's client runs with the user's settings, its bulk data flowing as its kind sends it; it
                // is the only Kafka client the doctor runs while it judges, so every socket to the brokers is its own
                socket -> client.named(CensusTracker.clientIdentity(socket, null))
                        .ownerKnownBy(OwnerKnownBy.SOLE_CLIENT));
        census.refresh();
        monitor.round();
        Map<String, Finding> onePerRuleAndBroker = new LinkedHashMap<>();
        for (Finding finding : board.current()) {
            onePerRuleAndBroker.putIfAbsent(
                    finding.rule().id() + " "
                            + finding.connection()
                                    .remote()
                                    .map(ConnectionIdentity::address)
                                    .orElse(null),
                    finding);
        }
        return new ArrayList<>(onePerRuleAndBroker.values());
    }
}
