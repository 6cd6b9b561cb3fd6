package io.tcpsight.lab;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;

/**
 * A KRaft cluster of N combined (broker and controller) nodes, ids 1..N, each its own JVM: on
 * loopback with the tcpsight agent (the smallest real cluster a rolling restart can walk through
 * while the quorum keeps a majority), or in a kernel lab's server namespace (a far cluster).
 * Internal topics have min(3, N) replicas.
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
        for (int i = 0; i < nodes; i++) {
            ports[i] = KafkaBroker.freePort();
            controllerPorts[i] = KafkaBroker.freePort();
        }
        return start(ports, controllerPorts, () -> KafkaBroker.onLoopback().agent(agentArguments), overrides);
    }

    /**
     * Starts {@code nodes} nodes, without the agent, in the lab's server namespace: the far
     * cluster a client reaches only across the delay line, as a real remote cluster of several
     * brokers, each leading its share of a topic's partitions. They listen on the server's lab
     * address, ports 9092, 9094, ...; their quorum stays inside the namespace.
     */
    public static KafkaCluster inLab(KernelLab lab, int nodes, Map<String, String> overrides)
            throws IOException, InterruptedException {
        int[] ports = new int[nodes];
        int[] controllerPorts = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            ports[i] = 9092 + 2 * i;
            controllerPorts[i] = 9093 + 2 * i;
        }
        return start(ports, controllerPorts, () -> KafkaBroker.inLab(lab), overrides);
    }

    private static KafkaCluster start(
            int[] ports, int[] controllerPorts, Supplier<KafkaBroker.Builder> where, Map<String, String> overrides)
            throws IOException, InterruptedException {
        int nodes = ports.length;
        StringJoiner voters = new StringJoiner(",");
        for (int i = 0; i < nodes; i++) {
            voters.add((i + 1) + "@127.0.0.1:" + controllerPorts[i]);
        }
        String clusterId = Uuid.randomUuid().toString();
        List<KafkaBroker> brokers = new ArrayList<>();
        KafkaCluster cluster = new KafkaCluster(brokers);
        try {
            for (int i = 0; i < nodes; i++) {
                brokers.add(where.get()
                        .clusterNode(
                                i + 1, ports[i], controllerPorts[i], voters.toString(), clusterId, Math.min(3, nodes))
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
