package io.tcpsight.doctor;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.FindingsBoard;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.OwnerKnownBy;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.monitor.JudgedConnection;
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
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Judges the connections a Kafka client with the user's config opened from this process: found
 * by the process census, sampled through TCP_INFO, and run through the same connection rules the
 * agent and the plugin use, with the user's settings. One finding per rule and broker. A round
 * samples every such connection; a second round gives each the interval between the two, which
 * the rules that judge a flow read.
 */
final class ClientConnectionJudge {
    private final CensusTracker census;
    private final ConnectionMonitor monitor;
    private final FindingsBoard board;

    private ClientConnectionJudge(CensusTracker census, ConnectionMonitor monitor, FindingsBoard board) {
        this.census = census;
        this.monitor = monitor;
        this.board = board;
    }

    /** One round over the client's connections now open, each judged with {@code settings}. */
    static List<Finding> judge(
            Map<InetSocketAddress, String> nodeIds,
            DoctorClient client,
            KafkaSettings settings,
            KernelFacts kernel,
            TcpsightConfig config)
            throws IOException {
        ClientConnectionJudge judge = watching(nodeIds, client, connection -> settings, kernel, config);
        judge.round();
        return judge.findings();
    }

    /**
     * Watches the connections of this process to the brokers in {@code nodeIds}, each named by its
     * broker's node id and as {@code client}'s, judged with the settings {@code settings} gives it
     * in each round; no round yet.
     */
    static ClientConnectionJudge watching(
            Map<InetSocketAddress, String> nodeIds,
            DoctorClient client,
            Function<TrackedConnection, KafkaSettings> settings,
            KernelFacts kernel,
            TcpsightConfig config) {
        ConnectionRegistry registry = new ConnectionRegistry(1024);
        FindingsBoard board = new FindingsBoard(Long.MAX_VALUE, finding -> {});
        ConnectionMonitor monitor = new ConnectionMonitor(registry, config, settings, () -> kernel, board);
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
        return new ClientConnectionJudge(census, monitor, board);
    }

    /** Finds the client's connections open now and samples and judges each. */
    void round() throws IOException {
        census.refresh();
        monitor.round();
    }

    /** The connections the latest round sampled and judged. */
    List<TrackedConnection> lastConnections() {
        return JudgedConnection.connections(monitor.lastRound().connections());
    }

    /** The latest round's findings, one per rule and broker. */
    List<Finding> findings() {
        return findings(identity -> false);
    }

    /**
     * The latest round's findings, one per rule and broker: where a rule fired on more than one
     * socket to a broker, on the first {@code preferred} names (the one that carried the flow, not
     * a bootstrap socket beside it), else on the first found.
     */
    List<Finding> findings(Predicate<ConnectionIdentity> preferred) {
        Map<String, Finding> onePerRuleAndBroker = new LinkedHashMap<>();
        for (boolean preferredPass : new boolean[] {true, false}) {
            for (Finding finding : board.current()) {
                if (preferredPass && !preferred.test(finding.connection())) {
                    continue;
                }
                onePerRuleAndBroker.putIfAbsent(
                        finding.rule().id() + " "
                                + finding.connection()
                                        .remote()
                                        .map(ConnectionIdentity::address)
                                        .orElse(null),
                        finding);
            }
        }
        return new ArrayList<>(onePerRuleAndBroker.values());
    }
}
