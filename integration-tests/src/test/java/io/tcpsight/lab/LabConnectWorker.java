package io.tcpsight.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real distributed Connect worker JVM (Kafka 4.3.1 jars, the tcpsight plugin directory on
 * plugin.path) in a kernel lab's client namespace: its clients reach the broker only across the
 * delay line; the test talks to its REST API over the undelayed client control link.
 */
public final class LabConnectWorker implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final int REST_PORT = 8083;

    private final LabProcess process;
    private final String restUrl;
    private final Path directory;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private LabConnectWorker(LabProcess process, String restUrl, Path directory) {
        this.process = process;
        this.restUrl = restUrl;
        this.directory = directory;
    }

    /** Starts a worker against this broker with these extra worker settings, and waits for its REST API. */
    public static LabConnectWorker start(KernelLab lab, KafkaBroker broker, Map<String, String> workerConfig)
            throws IOException, InterruptedException {
        LabPrerequisites.requireKafkaRuntime();
        int n = NEXT.incrementAndGet();
        Path directory = Files.createDirectories(LabPaths.work().resolve(lab.serverNamespace() + "-connect-" + n));
        Map<String, String> config = new LinkedHashMap<>();
        config.put("bootstrap.servers", broker.bootstrapServers());
        config.put("group.id", "tcpsight-lab-connect-" + n);
        config.put("config.storage.topic", "connect-configs-" + n);
        config.put("offset.storage.topic", "connect-offsets-" + n);
        config.put("status.storage.topic", "connect-status-" + n);
        config.put("config.storage.replication.factor", "1");
        config.put("offset.storage.replication.factor", "1");
        config.put("status.storage.replication.factor", "1");
        config.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        config.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        config.put("listeners", "http://0.0.0.0:" + REST_PORT);
        config.put("rest.advertised.host.name", lab.clientControlAddress());
        config.put("plugin.path", LabPaths.connectPlugins().toString());
        config.put("plugin.discovery", "service_load");
        config.put("offset.flush.interval.ms", "1000");
        config.putAll(workerConfig);
        Properties properties = new Properties();
        properties.putAll(config);
        Path file = directory.resolve("worker.properties");
        try (var out = Files.newBufferedWriter(file)) {
            properties.store(out, "tcpsight lab Connect worker");
        }
        Path log4j = directory.resolve("log4j2.properties");
        Files.write(log4j, List.of("rootLogger.level = WARN", "rootLogger.appenderRef.console.ref = console",
                "appender.console.type = Console", "appender.console.name = console",
                "appender.console.layout.type = PatternLayout", "appender.console.layout.pattern = [%d] %p %m (%c)%n",
                "logger.tcpsight.name = io.tcpsight", "logger.tcpsight.level = INFO"), StandardCharsets.UTF_8);
        List<String> command = new ArrayList<>(Arrays.asList(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms256m", "-Xmx1g", "-Dlog4j2.configurationFile=" + log4j, "-cp", LabPaths.kafkaLib() + "/*",
                "org.apache.kafka.connect.cli.ConnectDistributed", file.toString()));
        LabProcess process = lab.execInClient("connect-" + n, command);
        LabConnectWorker worker = new LabConnectWorker(process, "http://" + lab.clientControlAddress() + ":" + REST_PORT, directory);
        try {
            worker.awaitRest(Duration.ofSeconds(120));
        } catch (AssertionError | RuntimeException failure) {
            worker.close();
            throw failure;
        }
        return worker;
    }

    private void awaitRest(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && process.process().isAlive()) {
            try {
                get("/connectors");
                return;
            } catch (IOException notYet) {
                Thread.sleep(250);
            }
        }
        throw new AssertionError("Connect worker REST not up within " + timeout + ". Output:\n" + process.output());
    }

    public String restUrl() {
        return restUrl;
    }

    /** Where a FileStreamSink of this worker may write (the worker runs as this user on this host). */
    public Path directory() {
        return directory;
    }

    public LabProcess process() {
        return process;
    }

    public JsonNode put(String path, Object body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(restUrl + path)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build());
    }

    public JsonNode get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(restUrl + path)).timeout(Duration.ofSeconds(10)).GET().build());
    }

    /** GET as text (e.g. /tcpsight/metrics). */
    public String getText(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(restUrl + path)).timeout(Duration.ofSeconds(10)).GET()
                .build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + path + " -> " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    public JsonNode delete(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(restUrl + path)).DELETE().build());
    }

    private JsonNode send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
            throw new IOException(request.method() + " " + request.uri() + " -> " + response.statusCode() + ": " + response.body());
        }
        return response.body().isEmpty() ? JSON.nullNode() : JSON.readTree(response.body());
    }

    /** Tasks of this connector in state RUNNING, per its status (0 while it does not exist yet). */
    public int runningTasks(String connector) throws InterruptedException {
        try {
            JsonNode status = get("/connectors/" + connector + "/status");
            int running = 0;
            for (JsonNode task : status.path("tasks")) {
                running += "RUNNING".equals(task.path("state").asText()) ? 1 : 0;
            }
            return running;
        } catch (IOException notYet) {
            return 0;
        }
    }

    @Override
    public void close() {
        process.close();
    }
}
