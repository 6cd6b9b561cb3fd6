package io.tcpsight.lab;

import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Volume;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * A distributed Connect worker container on the proxied broker's network. Its clients reach the
 * broker through Toxiproxy; the plugin directory (the plugin's zip, unzipped) is mounted on
 * plugin.path. Talks to the worker through its REST API.
 */
public final class ConnectWorker extends ConnectRest implements AutoCloseable {
    private final GenericContainer<?> container;

    private ConnectWorker(GenericContainer<?> container) {
        super("http://127.0.0.1:" + container.getMappedPort(8083));
        this.container = container;
    }

    /** Starts a worker; extra worker settings go in as key=value (e.g. consumer.receive.buffer.bytes). */
    @SuppressWarnings("resource")
    public static ConnectWorker start(ProxiedKafka kafka, Map<String, String> workerConfig) throws IOException {
        Files.createDirectories(LabPaths.connectPlugins());
        GenericContainer<?> container = new GenericContainer<>(LabImages.connect())
                .withNetwork(kafka.network())
                .withNetworkAliases("connect")
                .withExposedPorts(8083)
                // A plain bind through HostConfig: Testcontainers' own bind check would try to pull
                // alpine to probe the mount, and nothing can be pulled here.
                .withCreateContainerCmdModifier(create -> create.getHostConfig()
                        .withBinds(new Bind(
                                LabPaths.connectPlugins().toString(),
                                new Volume("/opt/connect-plugins"),
                                AccessMode.ro)))
                .withEnv("CONNECT_CFG_BOOTSTRAP_SERVERS", kafka.networkBootstrapServers())
                .waitingFor(Wait.forHttp("/connectors").forPort(8083).withStartupTimeout(Duration.ofSeconds(120)));
        workerConfig.forEach((key, value) ->
                container.withEnv("CONNECT_CFG_" + key.toUpperCase().replace('.', '_'), value));
        container.start();
        return new ConnectWorker(container);
    }

    public GenericContainer<?> container() {
        return container;
    }

    @Override
    public void close() {
        container.stop();
    }
}
