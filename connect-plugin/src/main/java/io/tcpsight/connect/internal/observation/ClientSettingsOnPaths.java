package io.tcpsight.connect.internal.observation;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.config.ClientConfigRules;
import io.tcpsight.internal.diagnose.finding.Evidence;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ClientKind;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.sampling.MeasuredPaths;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Findings that need no socket's owner: each connector's task clients (and each MirrorMaker 2
 * client) judged by the settings they run with against the RTT measured to the cluster they
 * reach. A connector whose sockets are not certainly named (TLS, or idle sockets whose counts tie)
 * is still named here, with its tasks and its override key. A connector with a named socket on
 * that cluster is left to the per-socket rules, which see the window the kernel granted.
 */
final class ClientSettingsOnPaths {
    private final ConnectClientSettings settings;
    private final Predicate<InetSocketAddress> workerCluster;
    private final TcpsightConfig config;

    ClientSettingsOnPaths(
            ConnectClientSettings settings, Predicate<InetSocketAddress> workerCluster, TcpsightConfig config) {
        this.settings = settings;
        this.workerCluster = workerCluster;
        this.config = config;
    }

    /** {@code clientIds}: the task and MM2 clients in this JVM now; {@code sampled}: the round's sockets. */
    List<Finding> judge(Set<String> clientIds, List<TrackedConnection> sampled) {
        Map<String, Set<String>> tasksByGroup = new TreeMap<>();
        for (String clientId : clientIds) {
            ClientKind kind = ClientKind.fromClientId(clientId);
            if (kind.isConnect() || kind.isMirror()) {
                tasksByGroup
                        .computeIfAbsent(group(clientId, kind), any -> new TreeSet<>())
                        .add(clientId);
            }
        }
        List<Finding> findings = new ArrayList<>();
        tasksByGroup.forEach((group, tasks) -> {
            String oneTask = tasks.iterator().next();
            Predicate<InetSocketAddress> onCluster = clusterOf(oneTask);
            if (anyNamed(tasks, group, sampled, onCluster)) {
                return;
            }
            KafkaSettings effective = settings.forClient(oneTask);
            MeasuredPaths.slowest(sampled, onCluster).ifPresent(path -> {
                for (Finding finding : ClientConfigRules.settingsOnMeasuredPath(
                        path.clientOnPath(group), effective, path.rttMicros, config)) {
                    findings.add(withTasks(finding, tasks));
                }
            });
        });
        return findings;
    }

    /** The paths certainly to the cluster a task client reaches: its brokers' addresses, never a port alone. */
    Predicate<InetSocketAddress> clusterOf(String clientId) {
        return settings.otherCluster(clientId).orElse(workerCluster);
    }

    /** A connector's task clients as one ("connector-consumer-NAME-*"); an MM2 client by itself. */
    private static String group(String clientId, ClientKind kind) {
        return kind.isConnect() ? clientId.replaceFirst("-\\d+$", "-*") : clientId;
    }

    private static boolean anyNamed(
            Set<String> tasks, String group, List<TrackedConnection> sampled, Predicate<InetSocketAddress> onCluster) {
        for (TrackedConnection connection : sampled) {
            ConnectionIdentity identity = connection.identity();
            String clientId = identity.clientId().orElse("");
            if (identity.ownerKnownBy().known()
                    && (tasks.contains(clientId) || clientId.equals(group))
                    && identity.remote().filter(onCluster).isPresent()) {
                return true;
            }
        }
        return false;
    }

    private static Finding withTasks(Finding finding, Set<String> tasks) {
        List<Evidence> evidence = new ArrayList<>(finding.evidence());
        evidence.add(new Evidence("clients", String.join(",", tasks), ""));
        return new Finding(finding.rule(), finding.severity(), finding.connection(), evidence, finding.remedy());
    }
}
