package io.tcpsight.lab;

import eu.rekawek.toxiproxy.Proxy;
import eu.rekawek.toxiproxy.ToxiproxyClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.toxiproxy.ToxiproxyContainer;

/**
 * A broker container behind Toxiproxy: every client byte crosses the proxy, because the broker
 * advertises the proxied addresses only. Two listeners, two proxies:
 * <ul>
 *   <li>{@link #bootstrapServers()} for clients in the test JVM (127.0.0.1:mapped port);</li>
 *   <li>{@link #networkBootstrapServers()} for other containers on {@link #network()}.</li>
 * </ul>
 * Toxics on {@link #hostProxy()} and {@link #networkProxy()} model application-level faults.
 * TCP_INFO never sees their latency: Toxiproxy adds it in user space (docs/lab.md).
 */
public final class ProxiedKafka implements AutoCloseable {
    private static final int HOST_PROXY_PORT = 8666;
    private static final int NETWORK_PROXY_PORT = 8667;

    private final Network network;
    private final ToxiproxyContainer toxiproxy;
    private final GenericContainer<?> broker;
    private final Proxy hostProxy;
    private final Proxy networkProxy;

    private ProxiedKafka(
            Network network,
            ToxiproxyContainer toxiproxy,
            GenericContainer<?> broker,
            Proxy hostProxy,
            Proxy networkProxy) {
        this.network = network;
        this.toxiproxy = toxiproxy;
        this.broker = broker;
        this.hostProxy = hostProxy;
        this.networkProxy = networkProxy;
    }

    @SuppressWarnings("resource")
    public static ProxiedKafka start() {
        LabPrerequisites.requireContainerLab();
        String kafkaImage = LabImages.kafka();
        // Published ports of a user network bind to 0.0.0.0 unless the bridge says otherwise.
        Network network = Network.builder()
                .createNetworkCmdModifier(create ->
                        create.withOptions(Map.of("com.docker.network.bridge.host_binding_ipv4", "127.0.0.1")))
                .build();
        ToxiproxyContainer toxiproxy =
                new ToxiproxyContainer(LabImages.TOXIPROXY).withNetwork(network).withNetworkAliases("toxiproxy");
        toxiproxy.start();
        try {
            ToxiproxyClient client = new ToxiproxyClient(toxiproxy.getHost(), toxiproxy.getControlPort());
            Proxy hostProxy = client.createProxy("kafka-host", "0.0.0.0:" + HOST_PROXY_PORT, "kafka:9092");
            Proxy networkProxy = client.createProxy("kafka-network", "0.0.0.0:" + NETWORK_PROXY_PORT, "kafka:9094");
            String advertisedHost = "127.0.0.1:" + toxiproxy.getMappedPort(HOST_PROXY_PORT);
            GenericContainer<?> broker = new GenericContainer<>(kafkaImage)
                    .withNetwork(network)
                    .withNetworkAliases("kafka")
                    .withEnv(
                            "KAFKA_CFG_LISTENERS",
                            "HOST://0.0.0.0:9092,NETWORK://0.0.0.0:9094,CONTROLLER://127.0.0.1:9093")
                    .withEnv(
                            "KAFKA_CFG_ADVERTISED_LISTENERS",
                            "HOST://" + advertisedHost + ",NETWORK://toxiproxy:" + NETWORK_PROXY_PORT)
                    .withEnv(
                            "KAFKA_CFG_LISTENER_SECURITY_PROTOCOL_MAP",
                            "HOST:PLAINTEXT,NETWORK:PLAINTEXT,CONTROLLER:PLAINTEXT")
                    .withEnv("KAFKA_CFG_INTER_BROKER_LISTENER_NAME", "NETWORK")
                    .waitingFor(Wait.forLogMessage(".*Kafka Server started.*", 1)
                            .withStartupTimeout(Duration.ofSeconds(120)));
            broker.start();
            return new ProxiedKafka(network, toxiproxy, broker, hostProxy, networkProxy);
        } catch (IOException failure) {
            toxiproxy.stop();
            network.close();
            throw new UncheckedIOException("creating the Toxiproxy proxies failed", failure);
        } catch (RuntimeException failure) {
            toxiproxy.stop();
            network.close();
            throw failure;
        }
    }

    /** For clients in the test JVM; reaches the broker only through {@link #hostProxy()}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + toxiproxy.getMappedPort(HOST_PROXY_PORT);
    }

    /** For containers on {@link #network()}; reaches the broker only through {@link #networkProxy()}. */
    public String networkBootstrapServers() {
        return "toxiproxy:" + NETWORK_PROXY_PORT;
    }

    public Proxy hostProxy() {
        return hostProxy;
    }

    public Proxy networkProxy() {
        return networkProxy;
    }

    public Network network() {
        return network;
    }

    /** The proxy's container, for its log when a fault outlives its toxic. */
    public ToxiproxyContainer toxiproxy() {
        return toxiproxy;
    }

    public GenericContainer<?> broker() {
        return broker;
    }

    @Override
    public void close() {
        broker.stop();
        toxiproxy.stop();
        network.close();
    }
}
