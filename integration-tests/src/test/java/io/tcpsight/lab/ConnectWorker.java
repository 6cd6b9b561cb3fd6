package io.tcpsight.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Volume;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * A distributed Connect worker container on the proxied broker's network. Its clients reach the
 * broker through Toxiproxy; the plugin directory (target/connect-plugins) is mounted on
 * plugin.path. Talks to the worker through its REST API.
 */
public final class ConnectWorker implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final GenericContainer<?> container;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ConnectWorker(GenericContainer<?> container) {
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
                .withCreateContainerCmdModifier(create -> create.getHostConfig().withBinds(
                        new Bind(LabPaths.connectPlugins().toString(), new Volume("/opt/connect-plugins"), AccessMode.ro)))
                .withEnv("CONNECT_CFG_BOOTSTRAP_SERVERS", kafka.networkBootstrapServers())
                .waitingFor(Wait.forHttp("/connectors").forPort(8083).withStartupTimeout(Duration.ofSeconds(120)));
        workerConfig.forEach((key, value) -> container.withEnv("CONNECT_CFG_" + key.toUpperCase().replace('.', '_'), value));
        container.start();
        return new ConnectWorker(container);
    }

    public String restUrl() {
        return "http://127.0.0.1:" + container.getMappedPort(8083);
    }

    public GenericContainer<?> container() {
        return container;
    }

    public JsonNode put(String path, Object body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(restUrl() + path)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build());
    }

    public JsonNode get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(restUrl() + path)).GET().build());
    }

    private JsonNode send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
            throw new IOException(request.method() + " " + request.uri() + " -> " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    @Override
    public void close() {
        container.stop();
    }
}
