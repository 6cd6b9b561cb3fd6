package io.tcpsight.lab;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import org.apache.kafka.common.Uuid;

/**
 * A KRaft cluster of N combined (broker and controller) nodes, ids 1..N, each its own JVM: on
 * loopback with the tcpsight agent (the smallest real cluster a rolling restart can walk through
 * while the quorum keeps a majority), in a kernel lab's server namespace (a far cluster), or
 * stretched across the lab's line. Internal topics have min(3, N) replicas.
 */
public final class KafkaCluster implements AutoCloseable {
    private final List<KafkaBroker> brokers;

    private KafkaCluster(List<KafkaBroker> brokers) {
        this.brokers = brokers;
    }

    /**
     * Starts {@code nodes} nodes on loopback with the agent (these arguments) and overrides, and waits
     * until each answers; their JVMs are {@link LabJvm#SHORT_LIVED}'s (a rolling restart's claims are
     * findings and restarts, no rate).
     */
    public static KafkaCluster start(int nodes, String agentArguments, Map<String, String> overrides)
            throws IOException, InterruptedException {
        int[] ports = new int[nodes];
        int[] controllerPorts = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            ports[i] = KafkaBroker.freePort();
            controllerPorts[i] = KafkaBroker.freePort();
        }
        return start(
                ports,
                controllerPorts,
                node -> KafkaBroker.onLoopback().shortLivedJvm().agent(agentArguments),
                overrides);
    }

    /**
     * Starts {@code nodes} nodes, without the agent, in the lab's server namespace: the far
     * cluster a client reaches only across the delay line, as a real remote cluster of several
     * brokers, each leading its share of a topic's partitions. They listen on the server's lab
     * address, ports 9092, 9094, ...; their quorum stays inside the namespace.
     */
    public static KafkaCluster inLab(KernelLab lab, int nodes, Map<String, String> overrides)
            throws IOException, InterruptedException {
        return inLab(lab, nodes, overrides, node -> null);
    }

    /**
     * The same, each node with the agent these arguments give it ({@code agents.apply(nodeId)}; null:
     * none). Their endpoints share the server's lab address, so each names its own port.
     */
    public static KafkaCluster inLab(
            KernelLab lab, int nodes, Map<String, String> overrides, IntFunction<String> agents)
            throws IOException, InterruptedException {
        return inLab(lab, nodes, overrides, agents, false);
    }

    /**
     * The same, each node's JVM {@link LabJvm#SHORT_LIVED}'s: for a test whose claims are windows,
     * names and findings, never the cluster's rate.
     */
    public static KafkaCluster inLabShortLived(
            KernelLab lab, int nodes, Map<String, String> overrides, IntFunction<String> agents)
            throws IOException, InterruptedException {
        return inLab(lab, nodes, overrides, agents, true);
    }

    private static KafkaCluster inLab(
            KernelLab lab, int nodes, Map<String, String> overrides, IntFunction<String> agents, boolean shortLived)
            throws IOException, InterruptedException {
        int[] ports = new int[nodes];
        int[] controllerPorts = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            ports[i] = 9092 + 2 * i;
            controllerPorts[i] = 9093 + 2 * i;
        }
        return start(
                ports,
                controllerPorts,
                node -> {
                    KafkaBroker.Builder builder = KafkaBroker.inLab(lab).agent(agents.apply(node));
                    return shortLived ? builder.shortLivedJvm() : builder;
                },
                overrides);
    }

    /**
     * Two nodes with the agent (these arguments), one on each side of the line, their quorum across
     * it: node 1 in the server namespace (port 9092, its controller on 9093 at the server's lab
     * address), node 2 in the client namespace (port 19092, its controller on 19093 at the client's
     * lab address). Node 2 reaches node 1's listeners only across the line; node 2's client
     * listener is advertised at the client namespace's control address, for the test JVM, so a
     * replica crosses the line only as a follower on node 2 fetching from a leader on node 1.
     */
    public static KafkaCluster stretched(
            KernelLab lab, String agentArguments, Map<String, String> serverSide, Map<String, String> clientSide)
            throws IOException, InterruptedException {
        String voters = "1@" + lab.serverAddress() + ":9093,2@" + lab.clientAddress() + ":19093";
        String clusterId = Uuid.randomUuid().toString();
        return launch(List.of(
                KafkaBroker.inLab(lab)
                        .agent(agentArguments)
                        .clusterNode(1, 9092, 9093, voters, clusterId, 1)
                        .controllerHost(lab.serverAddress())
                        .overrides(serverSide),
                KafkaBroker.inLab(lab)
                        .onClientSide()
                        .agent(agentArguments)
                        .clusterNode(2, 19092, 19093, voters, clusterId, 1)
                        .controllerHost(lab.clientAddress())
                        .overrides(clientSide)));
    }

    private static KafkaCluster start(
            int[] ports, int[] controllerPorts, IntFunction<KafkaBroker.Builder> where, Map<String, String> overrides)
            throws IOException, InterruptedException {
        int nodes = ports.length;
        StringJoiner voters = new StringJoiner(",");
        for (int i = 0; i < nodes; i++) {
            voters.add((i + 1) + "@127.0.0.1:" + controllerPorts[i]);
        }
        String clusterId = Uuid.randomUuid().toString();
        List<KafkaBroker.Builder> nodeBuilders = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            nodeBuilders.add(where.apply(i + 1)
                    .clusterNode(i + 1, ports[i], controllerPorts[i], voters.toString(), clusterId, Math.min(3, nodes))
                    .overrides(overrides));
        }
        return launch(nodeBuilders);
    }

    /**
     * Launches every node at once (each formats its storage in a JVM of its own first, a few
     * seconds), then waits for each: a node answers only once the quorum has a leader.
     */
    private static KafkaCluster launch(List<KafkaBroker.Builder> nodes) throws IOException, InterruptedException {
        List<KafkaBroker> brokers = Collections.synchronizedList(new ArrayList<>());
        KafkaCluster cluster = new KafkaCluster(brokers);
        ExecutorService launching = Executors.newFixedThreadPool(nodes.size());
        try {
            List<Future<KafkaBroker>> launched = new ArrayList<>();
            for (KafkaBroker.Builder node : nodes) {
                launched.add(launching.submit(node::launch));
            }
            Throwable first = null;
            for (Future<KafkaBroker> node : launched) {
                try {
                    brokers.add(node.get());
                } catch (ExecutionException failed) {
                    first = first == null ? failed.getCause() : first;
                }
            }
            if (first != null) {
                throw first instanceof IOException
                        ? (IOException) first
                        : new IOException("a node did not launch", first);
            }
            for (KafkaBroker broker : new ArrayList<>(brokers)) {
                broker.awaitReady(Duration.ofSeconds(120));
            }
        } catch (IOException | InterruptedException | RuntimeException | AssertionError failure) {
            cluster.close();
            throw failure;
        } finally {
            launching.shutdownNow();
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
