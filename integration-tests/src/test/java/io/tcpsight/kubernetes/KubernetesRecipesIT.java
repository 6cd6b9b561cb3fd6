package io.tcpsight.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.tcpsight.lab.HostCpu;
import io.tcpsight.lab.LabPaths;
import io.tcpsight.lab.LabPrerequisites;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The recipes in docs/kubernetes, validated as far as a machine without a cluster allows: every
 * custom resource against its CRD's schema (Strimzi, the Prometheus Operator; see
 * resources/kubernetes-schemas/README.md for their sources), every core resource decoded strictly
 * into Kubernetes' own types (kube-validate), and a typo refused by both checks.
 */
// runs nothing across the delay line: may run beside the lab classes (HostCpu)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = HostCpu.LOCK, mode = ResourceAccessMode.READ)
class KubernetesRecipesIT {
    private static final Path RECIPES = Path.of("..", "docs", "kubernetes");
    private static final Path DASHBOARDS = Path.of("..", "docs", "dashboards");
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyCustomResourceFitsItsDefinitionsSchema() throws Exception {
        Map<String, List<String>> problems = new TreeMap<>();
        List<String> checked = new ArrayList<>();
        for (Path file : recipes()) {
            for (JsonNode resource : documents(file)) {
                String apiVersion = resource.path("apiVersion").asText();
                if (!apiVersion.contains(".") || apiVersion.endsWith(".k8s.io/v1")) {
                    continue; // a Kubernetes resource: kube-validate's
                }
                String name = file.getFileName() + " " + resource.path("kind").asText() + " "
                        + resource.path("metadata").path("name").asText();
                for (String release : releasesOf(resource)) {
                    checked.add(name + release);
                    List<String> found = schemaOf(resource, release).problems(resource);
                    if (!found.isEmpty()) {
                        problems.put(name + release, found);
                    }
                }
            }
        }
        System.out.println("custom resources checked against their CRDs: " + checked);
        assertTrue(checked.size() >= 13, "the recipes' custom resources, each Strimzi one twice: " + checked);
        assertEquals(Map.of(), problems);
    }

    @Test
    void everyCoreResourceDecodesStrictlyIntoKubernetesTypes() throws Exception {
        LabPrerequisites.requireKubeValidate();
        List<String> files = new ArrayList<>();
        recipes().forEach(file -> files.add(file.toString()));
        String output = kubeValidate(files, 0);
        System.out.println("kube-validate:\n" + output.strip());
        assertTrue(output.lines().anyMatch(line -> line.startsWith("ok StatefulSet kafka")), output);
        assertTrue(output.lines().anyMatch(line -> line.equals("ok NetworkPolicy tcpsight-scrape")), output);
        // one ConfigMap for each dashboard in docs/dashboards, for Grafana's sidecar
        long dashboards;
        try (Stream<Path> listed = Files.list(Path.of("..", "docs", "dashboards"))) {
            dashboards =
                    listed.filter(file -> file.toString().endsWith(".json")).count();
        }
        assertTrue(dashboards >= 4, "the dashboards: " + dashboards);
        assertEquals(
                dashboards,
                output.lines().filter(line -> line.startsWith("ok ConfigMap")).count(),
                output);
    }

    /**
     * Keys Strimzi drops from a KafkaConnect's or MirrorMaker 2's spec.config with a warning
     * (KafkaConnectSpec.FORBIDDEN_PREFIXES in strimzi-kafka-operator, the same at 1.2.0 and at
     * 8541da1e of 2026-08-22), less the exceptions it lets through.
     */
    private static final List<String> STRIMZI_DROPS = List.of(
            "group.id",
            "config.storage.topic",
            "offset.storage.topic",
            "status.storage.topic",
            "ssl.",
            "sasl.",
            "security.",
            "listeners",
            "plugin.path",
            "rest.",
            "bootstrap.servers",
            "consumer.interceptor.classes",
            "producer.interceptor.classes",
            "prometheus.metrics.reporter.");

    private static final List<String> STRIMZI_KEEPS = List.of(
            "ssl.endpoint.identification.algorithm", "ssl.cipher.suites", "ssl.protocol", "ssl.enabled.protocols");

    @Test
    void noConnectRecipeSetsAKeyStrimziDrops() throws Exception {
        List<String> dropped = new ArrayList<>();
        int seen = 0;
        for (Path file : recipes()) {
            for (JsonNode resource : documents(file)) {
                if (!resource.path("kind").asText().equals("KafkaConnect")) {
                    continue;
                }
                seen++;
                resource.path("spec").path("config").fieldNames().forEachRemaining(key -> {
                    if (STRIMZI_KEEPS.stream().noneMatch(key::equals)
                            && STRIMZI_DROPS.stream().anyMatch(key::startsWith)) {
                        dropped.add(file.getFileName() + ": " + key);
                    }
                });
            }
        }
        assertTrue(seen >= 1, "a KafkaConnect recipe");
        assertEquals(List.of(), dropped);
    }

    /**
     * A build artifact of type other lands at /opt/kafka/plugins/PLUGIN/HASH/FILE, HASH being the
     * first 8 hex digits of the SHA-1 of its URL (KafkaConnectDockerfile and Util.hashStub in
     * strimzi-kafka-operator): the agent's path in JAVA_TOOL_OPTIONS must be that one.
     */
    @Test
    void theAgentPathInABuiltConnectImageIsWhereStrimziPutsTheJar() throws Exception {
        JsonNode connect = documents(RECIPES.resolve("strimzi").resolve("kafka-connect.yaml"))
                .get(0);
        String expected = null;
        for (JsonNode plugin : connect.path("spec").path("build").path("plugins")) {
            for (JsonNode artifact : plugin.path("artifacts")) {
                // the file keeps the name the build gives it, as on a VM
                String fileName = artifact.path("fileName").asText();
                if (fileName.startsWith("tcpsight-broker-agent-") && fileName.endsWith(".jar")) {
                    byte[] sha1 = MessageDigest.getInstance("SHA-1")
                            .digest(artifact.path("url").asText().getBytes(StandardCharsets.US_ASCII));
                    expected = "/opt/kafka/plugins/" + plugin.path("name").asText() + "/"
                            + HexFormat.of().formatHex(sha1).substring(0, 8) + "/" + fileName;
                }
            }
        }
        assertNotNull(expected, "the agent jar among the build's artifacts");
        String options = "";
        for (JsonNode variable :
                connect.path("spec").path("template").path("connectContainer").path("env")) {
            if (variable.path("name").asText().equals("JAVA_TOOL_OPTIONS")) {
                options = variable.path("value").asText();
            }
        }
        assertTrue(options.contains("-javaagent:" + expected + "="), expected + " in " + options);
    }

    @Test
    void aMisspelledOrMistypedFieldIsRefusedByBothChecks() throws Exception {
        List<JsonNode> kafka = documents(RECIPES.resolve("strimzi").resolve("kafka.yaml"));
        ObjectNode pool = (ObjectNode) kafka.get(0).deepCopy();
        ((ObjectNode) pool.get("spec")).put("replicas", "three");
        ObjectNode cluster = (ObjectNode) kafka.get(1).deepCopy();
        ObjectNode brokers = (ObjectNode) cluster.get("spec").get("kafka");
        brokers.set("templat", brokers.remove("template"));
        assertEquals(
                List.of(".spec.replicas: the string \"three\" where an integer is expected"),
                schemaOf(pool).problems(pool));
        assertEquals(
                List.of(".spec.kafka.templat: unknown field"), schemaOf(cluster).problems(cluster));

        LabPrerequisites.requireKubeValidate();
        Path typo = Files.createTempFile("configmap-", ".yaml");
        try {
            Files.writeString(typo, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dashboards\ndatta:\n  a: b\n");
            String output = kubeValidate(List.of(typo.toString()), 1);
            assertTrue(output.contains("unknown field \"datta\""), output);
        } finally {
            Files.delete(typo);
        }
    }

    @Test
    void theDashboardConfigMapsHoldTheDashboardsUnchanged() throws Exception {
        int found = 0;
        for (JsonNode configMap : documents(RECIPES.resolve("dashboards-configmaps.yaml"))) {
            assertEquals(
                    "1",
                    configMap
                            .path("metadata")
                            .path("labels")
                            .path("grafana_dashboard")
                            .asText());
            var entries = configMap.path("data").fields();
            while (entries.hasNext()) {
                var entry = entries.next();
                String dashboard = entry.getKey().replaceFirst("^tcpsight-", "");
                String original = Files.readString(DASHBOARDS.resolve(dashboard), StandardCharsets.UTF_8);
                assertEquals(
                        JSON.readTree(original), JSON.readTree(entry.getValue().asText()), entry.getKey());
                found++;
            }
        }
        try (Stream<Path> dashboards = Files.list(DASHBOARDS)) {
            assertEquals(
                    dashboards.filter(file -> file.toString().endsWith(".json")).count(),
                    found,
                    "a ConfigMap per dashboard");
        }
    }

    /**
     * The operator releases a resource is checked against: Strimzi's newest ("") and its oldest
     * that runs the recipes' Kafka, 4.3.1 (" strimzi-1.2.0"); the newest alone for the others.
     */
    private static List<String> releasesOf(JsonNode resource) {
        return resource.path("apiVersion").asText().startsWith("kafka.strimzi.io/")
                ? List.of("", " " + OLDEST_STRIMZI)
                : List.of("");
    }

    private static final String OLDEST_STRIMZI = "strimzi-1.2.0";

    private static StructuralSchema schemaOf(JsonNode resource) throws IOException {
        return schemaOf(resource, "");
    }

    private static StructuralSchema schemaOf(JsonNode resource, String release) throws IOException {
        String[] groupVersion = resource.path("apiVersion").asText().split("/");
        String name = "/kubernetes-schemas/" + (release.isBlank() ? "" : release.trim() + "/") + groupVersion[0] + "-"
                + groupVersion[1] + "-" + resource.path("kind").asText() + ".json";
        try (InputStream schema = KubernetesRecipesIT.class.getResourceAsStream(name)) {
            assertNotNull(
                    schema,
                    "no schema for " + resource.path("apiVersion").asText() + " "
                            + resource.path("kind").asText() + " (" + name + ")");
            return new StructuralSchema(JSON.readTree(schema));
        }
    }

    private static List<Path> recipes() throws IOException {
        try (Stream<Path> files = Files.walk(RECIPES)) {
            return files.filter(file -> file.toString().endsWith(".yaml"))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    private static List<JsonNode> documents(Path file) throws IOException {
        List<JsonNode> documents = new ArrayList<>();
        try (var values = YAML.readerFor(JsonNode.class).<JsonNode>readValues(file.toFile())) {
            while (values.hasNext()) {
                JsonNode document = values.next();
                if (document != null && !document.isNull() && !document.isEmpty()) {
                    documents.add(document);
                }
            }
        }
        return documents;
    }

    private static String kubeValidate(List<String> files, int expectedExit) throws Exception {
        List<String> command = new ArrayList<>(List.of(LabPaths.kubeValidate().toString()));
        command.addAll(files);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "kube-validate did not finish");
        assertEquals(expectedExit, process.exitValue(), output);
        return output;
    }
}
