package io.tcpsight.doctor;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.connection.ExpectedRate;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.Limit;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.stream.Collectors;

/**
 * A client's path to one broker is one flow. A consumer's: its own window and fetch sizes (its
 * connection's findings), the broker's send buffer and this host's window scaling all hold it; a
 * producer's: its send buffer and its pipeline of batches, the broker's receive buffer and this
 * host's window scaling. So each limit among them says the rate once every remedy named on that
 * path is applied, and the report lists them in the order they bind. Both come from
 * client-metrics' {@link ExpectedRate} over the same findings: the doctor has no model of its own.
 */
final class ClientPaths {
    private ClientPaths() {}

    /** Which broker path a finding concerns: its node, else its address. */
    static String key(ConnectionIdentity identity) {
        return identity.nodeId()
                .map(node -> "node " + node)
                .orElse(identity.remote().map(ConnectionIdentity::address).orElse(""));
    }

    /**
     * The findings of a client's flow, each path's limits annotated with the rate after all of that
     * path's remedies; {@code rttByPath} is each path's measured RTT by {@link #key}, for the fetch
     * size that no finding names. The order is kept.
     */
    static List<Finding> annotate(
            List<Finding> consumerFlow,
            Map<String, Long> rttByPath,
            ClientRole role,
            KafkaSettings consumer,
            TcpsightConfig config) {
        Map<String, List<Integer>> positions = new LinkedHashMap<>();
        for (int i = 0; i < consumerFlow.size(); i++) {
            positions
                    .computeIfAbsent(key(consumerFlow.get(i).connection()), path -> new ArrayList<>())
                    .add(i);
        }
        List<Finding> annotated = new ArrayList<>(consumerFlow);
        positions.forEach((path, at) -> {
            List<Finding> onePath = at.stream().map(consumerFlow::get).collect(Collectors.toList());
            List<Finding> said = ExpectedRate.annotate(
                    config.targetBytesPerSecond(),
                    OptionalDouble.empty(),
                    onePath,
                    unnamed(role, onePath, consumer, rttByPath.getOrDefault(path, 0L), config));
            for (int i = 0; i < at.size(); i++) {
                annotated.set(at.get(i), said.get(i));
            }
        });
        return annotated;
    }

    /**
     * The limits a consumer meets on {@code path}, in order, with the rate after each and after all:
     * from the findings {@link #annotate} said the rate on, so the list and the findings agree.
     */
    static ExpectedRate limits(
            List<Finding> annotated,
            ConnectionIdentity path,
            long rttMicros,
            ClientRole role,
            KafkaSettings consumer,
            TcpsightConfig config) {
        String key = key(path);
        List<Finding> onePath = annotated.stream()
                .filter(finding -> finding.expectedAfterAll().isPresent()
                        && key(finding.connection()).equals(key))
                .collect(Collectors.toList());
        return ExpectedRate.of(
                config.targetBytesPerSecond(),
                OptionalDouble.empty(),
                onePath,
                unnamed(role, onePath, consumer, rttMicros, config));
    }

    /**
     * The limit no finding names that still holds the flow: a consumer's fetch size (a fetch
     * carries what it asks for, whether or not it binds now). A producer's pipeline is named
     * whenever it is below the target, so nothing of it is left unnamed.
     */
    private static List<Limit> unnamed(
            ClientRole role, List<Finding> onePath, KafkaSettings consumer, long rttMicros, TcpsightConfig config) {
        return role == ClientRole.CONSUMER
                ? ExpectedRate.unnamedFetch(onePath, consumer, rttMicros, config)
                : List.of();
    }
}
