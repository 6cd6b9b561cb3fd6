package io.tcpsight.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicReference;

/** A Connect worker's REST API, as the lab's worker fixtures (container or kernel lab) offer it. */
public class ConnectRest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final String restUrl;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** The Authorization header every request carries, once set; null: none. */
    private volatile String authorization;

    ConnectRest(String restUrl) {
        this.restUrl = restUrl;
    }

    public String restUrl() {
        return restUrl;
    }

    /** Every request from now on carries these credentials (a worker behind Connect's basic auth). */
    public void basicAuth(String user, String password) {
        authorization =
                "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** A GET's status code, whatever it is (a 401 from a guarded worker is an answer too). */
    public int status(String path) throws IOException, InterruptedException {
        return http.send(
                        withAuthorization(HttpRequest.newBuilder(URI.create(restUrl + path))
                                        .timeout(Duration.ofSeconds(10))
                                        .GET())
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private HttpRequest.Builder withAuthorization(HttpRequest.Builder request) {
        String header = authorization;
        return header == null ? request : request.header("Authorization", header);
    }

    public JsonNode put(String path, Object body) throws IOException, InterruptedException {
        return json(send(withAuthorization(HttpRequest.newBuilder(URI.create(restUrl + path)))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                .build()));
    }

    public JsonNode get(String path) throws IOException, InterruptedException {
        return json(getText(path));
    }

    /** GET as text (e.g. /tcpsight/metrics). */
    public String getText(String path) throws IOException, InterruptedException {
        return send(withAuthorization(HttpRequest.newBuilder(URI.create(restUrl + path)))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build());
    }

    public JsonNode delete(String path) throws IOException, InterruptedException {
        return json(send(withAuthorization(HttpRequest.newBuilder(URI.create(restUrl + path)))
                .DELETE()
                .build()));
    }

    private String send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
            throw new IOException(
                    request.method() + " " + request.uri() + " -> " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    private static JsonNode json(String body) throws IOException {
        return body.isEmpty() ? JSON.nullNode() : JSON.readTree(body);
    }

    /** Waits until the connector and this many of its tasks are RUNNING; returns that status. */
    public JsonNode awaitRunning(String connector, int tasks, Duration timeout) {
        AtomicReference<JsonNode> status = new AtomicReference<>();
        // 404 (an IOException, retried) until the connector is created
        return LabAwait.await(connector + " RUNNING with " + tasks + " RUNNING tasks")
                .atMost(timeout)
                .every(Duration.ofMillis(100))
                .explainedBy(() -> String.valueOf(status.get()))
                .until(() -> {
                    status.set(get("/connectors/" + connector + "/status"));
                    int running = 0;
                    for (JsonNode task : status.get().path("tasks")) {
                        running += "RUNNING".equals(task.path("state").asText()) ? 1 : 0;
                    }
                    boolean up = "RUNNING"
                            .equals(status.get().path("connector").path("state").asText());
                    return up && running == tasks ? status.get() : null;
                });
    }
}
