package io.tcpsight.agent.internal.hooks;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.network.PlaintextChannelBuilder;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Time;

/**
 * Runs inside {@link KafkaHookTransformerTest}'s loader, linked against the rewritten Kafka
 * classes: Kafka's own Selector connects over loopback, registers the accepted end as a broker's
 * Processor does, closes both; a NetworkClient is built on it; a RequestContext is made with a
 * shorter constructor (which delegates to the hooked one). Returns the Selector, so the test can
 * match it.
 */
public final class HookedKafkaExercise implements Supplier<Object> {
    @Override
    public Object get() {
        try (ServerSocketChannel listener =
                        ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                Metrics metrics = new Metrics()) {
            PlaintextChannelBuilder channels = new PlaintextChannelBuilder(ListenerName.normalised("PLAINTEXT"));
            channels.configure(Map.of());
            Selector selector = new Selector(60_000, metrics, Time.SYSTEM, "exercise", channels, new LogContext());
            new NetworkClient(
                    selector,
                    new ManualMetadataUpdater(),
                    "exercise-client",
                    1,
                    50,
                    1000,
                    65536,
                    65536,
                    30_000,
                    1000,
                    10_000,
                    Time.SYSTEM,
                    false,
                    new ApiVersions(),
                    new LogContext(),
                    MetadataRecoveryStrategy.NONE);

            selector.connect("node-1", (InetSocketAddress) listener.getLocalAddress(), 65536, 65536);
            SocketChannel accepted = listener.accept();
            accepted.configureBlocking(false);
            selector.register("broker-side-1", accepted);
            long deadline = System.nanoTime() + 5_000_000_000L;
            boolean connected = false;
            while (!connected && System.nanoTime() < deadline) {
                selector.poll(50);
                connected = selector.connected().contains("node-1");
            }
            if (!connected) {
                throw new IllegalStateException("Kafka's Selector did not connect over loopback within 5 s");
            }
            new RequestContext(
                    new RequestHeader(ApiKeys.METADATA, ApiKeys.METADATA.latestVersion(), "exercise-client", 7),
                    "broker-side-1",
                    InetAddress.getLoopbackAddress(),
                    Optional.empty(),
                    KafkaPrincipal.ANONYMOUS,
                    ListenerName.normalised("PLAINTEXT"),
                    SecurityProtocol.PLAINTEXT,
                    ClientInformation.EMPTY,
                    false);
            selector.close("node-1");
            selector.close("broker-side-1");
            selector.close();
            return selector;
        } catch (Exception failure) {
            throw new IllegalStateException(failure);
        }
    }
}
