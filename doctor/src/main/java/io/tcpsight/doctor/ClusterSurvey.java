package io.tcpsight.doctor;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.connection.ConnectionRules;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.BootstrapServers;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The doctor's gathering step: what the cluster tells an Admin client built from the user's
 * config. Each broker's path (handshake probe), its socket settings (DescribeConfigs, which also
 * opens one connection per broker with the user's buffers) and, while those connections are
 * open, the findings on them; partitions per broker when a probe topic is named.
 */
final class ClusterSurvey {
    static final List<String> BROKER_KEYS =
            List.of("socket.send.buffer.bytes", "socket.receive.buffer.bytes", "socket.listen.backlog.size");

    final List<BrokerPaths.BrokerPath> brokers = new ArrayList<>();
    /** node id -> the broker's socket settings, where DescribeConfigs was allowed. */
    final Map<String, Map<String, String>> brokerConfigs = new LinkedHashMap<>();
    /** Findings made while gathering: unanswered bootstraps, and the client's own connections. */
    final List<Finding> findings = new ArrayList<>();

    /** Each broker's address -> its node id, as the cluster described itself; empty where it did not answer. */
    final Map<InetSocketAddress, String> nodeIds = new LinkedHashMap<>();

    int partitionsPerBroker = 1;

    private ClusterSurvey() {}

    /** The broker's socket settings, where it has a node id and DescribeConfigs was allowed. */
    Optional<Map<String, String>> configOf(BrokerPaths.BrokerPath broker) {
        return broker.nodeId() == null ? Optional.empty() : Optional.ofNullable(brokerConfigs.get(broker.nodeId()));
    }

    /** The client's connections are judged with {@code kafka} (for the probe topic's partitions per broker). */
    static ClusterSurvey take(
            Properties client,
            DoctorClient named,
            String bootstrap,
            String probeTopic,
            KafkaSettings kafka,
            KernelFacts kernel,
            TcpsightConfig config,
            Duration timeout)
            throws InterruptedException, IOException {
        ClusterSurvey survey = new ClusterSurvey();
        long timeoutMs = timeout.toMillis();
        Properties adminConfig = new Properties();
        adminConfig.putAll(client);
        adminConfig.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        adminConfig.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        try (Admin admin = Admin.create(adminConfig)) {
            List<Node> nodes;
            try {
                nodes = new ArrayList<>(admin.describeCluster().nodes().get(timeoutMs, TimeUnit.MILLISECONDS));
            } catch (ExecutionException | TimeoutException noAnswer) {
                nodes = new ArrayList<>();
                String reason = noAnswer instanceof ExecutionException
                        ? String.valueOf(noAnswer.getCause())
                        : "no answer within " + timeoutMs + " ms";
                survey.probeBootstrapOnly(bootstrap, named, reason, timeout);
            }
            nodes.sort(Comparator.comparingInt(Node::id));
            Map<InetSocketAddress, String> nodeIds = survey.nodeIds;
            for (Node node : nodes) {
                InetSocketAddress address = new InetSocketAddress(node.host(), node.port());
                nodeIds.put(address, node.idString());
                survey.brokers.add(BrokerPaths.probe(node.idString(), address, timeout));
            }
            survey.brokerConfigs.putAll(openConnectionToEachBroker(admin, nodes, timeoutMs));
            if (probeTopic != null) {
                survey.partitionsPerBroker = ProbeTopic.partitionsPerBroker(admin, probeTopic, timeout);
            }
            if (!nodeIds.isEmpty()) {
                // fetch-size-below-bdp then sizes for the same partitions per broker as the recommendation table
                KafkaSettings judged =
                        probeTopic == null ? kafka : kafka.withPartitionsPerBroker(survey.partitionsPerBroker);
                survey.findings.addAll(ClientConnectionJudge.judge(nodeIds, named, judged, kernel, config));
            }
        }
        return survey;
    }

    /** No broker list: probe the bootstrap addresses, and say so where TCP answers but Kafka does not. */
    private void probeBootstrapOnly(String bootstrap, DoctorClient client, String reason, Duration timeout) {
        for (InetSocketAddress server : BootstrapServers.parse(bootstrap)) {
            BrokerPaths.BrokerPath path = BrokerPaths.probe(null, server, timeout);
            brokers.add(path);
            if (path.reachable()) {
                findings.add(ConnectionRules.brokerUnreachable(
                        path.identity(client),
                        "TCP handshake completes but Kafka did not answer: " + reason
                                + " (check security.protocol and the listener this port serves)"));
            }
        }
    }

    /**
     * The Admin client (built from the user's config, so its sockets get the user's buffers) asks
     * each broker for its config: one request per node opens one connection per node to judge,
     * and brings the broker's socket settings. Returns node id -> the settings that matter here.
     */
    private static Map<String, Map<String, String>> openConnectionToEachBroker(
            Admin admin, List<Node> nodes, long timeoutMs) throws InterruptedException {
        Map<String, Map<String, String>> configs = new LinkedHashMap<>();
        for (Node node : nodes) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
            try {
                Config described = admin.describeConfigs(List.of(resource))
                        .all()
                        .get(timeoutMs, TimeUnit.MILLISECONDS)
                        .get(resource);
                Map<String, String> shown = new LinkedHashMap<>();
                for (String key : BROKER_KEYS) {
                    ConfigEntry entry = described == null ? null : described.get(key);
                    if (entry != null && entry.value() != null) {
                        shown.put(key, entry.value());
                    }
                }
                configs.put(node.idString(), shown);
            } catch (ExecutionException | TimeoutException refusedOrSlow) {
                // an ACL may refuse the request; the connection it needed is open all the same
            }
        }
        return configs;
    }
}
