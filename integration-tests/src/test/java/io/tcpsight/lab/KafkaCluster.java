package io.tcpsight.lab;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.apache.kafka.common.Uuid;

/**
 * A loopback KRaft cluster of N combined (broker and controller) nodes, ids 1..N, each its own
 * JVM with the tcpsight agent: the smallest real cluster a rolling restart can walk through
 * while the quorum keeps a majority. Internal topics have min(3, N) replicas.
 */
public final class KafkaCluster implements AutoCloseable {
    private final List<KafkaBroker> brokers;

    private KafkaCluster(List<KafkaBroker> brokers) {
        this.brokers = brokers;
    }

    /** Starts {@code nodes} nodes with the agent (these arguments) and overrides, and waits until each answers. */
    public static KafkaCluster start(int nodes, String agentArguments, Map<String, String> overrides)
            throws IOException, InterruptedException {
        int[] ports = new int[nodes];
        int[] controllerPorts = new int[nodes];
        StringJoiner voters = new StringJoiner(",");
        for (int i = 0; i < nodes; i++) {
            ports[i] = KafkaBroker.freePort();
            controllerPorts[i] = KafkaBroker.freePort();
            voters.add((i + 1) + "@127.0.0.1:" + controllerPorts[i]);
        }
        String clusterId = Uuid.randomUuid().toString();
        List<KafkaBroker> brokers = new ArrayList<>();
        KafkaCluster cluster = new KafkaCluster(brokers);
        try {
            for (int i = 0; i < nodes; i++) {
                brokers.add(KafkaBroker.onLoopback()
                        .clusterNode(
                                i + 1, ports[i], controllerPorts[i], voters.toString(), clusterId, Math.min(3, nodes))
                        .agent(agentArguments)
                        .overrides(overrides)
                        .launch());
            }
            for (KafkaBroker broker : brokers) {
                broker.awaitReady(Duration.ofSeconds(120));
            }
        } catch (IOException | InterruptedException | RuntimeException | AssertionError failure) {
            cluster.close();
            throw failure;
        }
        return cluster;
    }

    public List<KafkaBroker> brokers() {
        return brokers;
    }

    /** Node id i+1 is brokers().get(i). */
    public KafkaBroker node(int nodeId) {
        return brokers.get(nodeId - 1);
    }

    public String bootstrapServers() {
        StringJoiner servers = new StringJoiner(",");
        brokers.forEach(broker -> servers.add(broker.bootstrapServers()));
        return servers.toString();
    }

    @Override
    public void close() {
        brokers.forEach(KafkaBroker::close);
    }
}
