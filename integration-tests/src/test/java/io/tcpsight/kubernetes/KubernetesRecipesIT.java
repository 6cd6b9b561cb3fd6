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
import java.util.ArrayList;
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
                if (!apiVersion.contains(".")) {
                    continue; // a core resource: kube-validate's
                }
                String name = file.getFileName() + " " + resource.path("kind").asText() + " "
                        + resource.path("metadata").path("name").asText();
                checked.add(name);
                List<String> found = schemaOf(resource).problems(resource);
                if (!found.isEmpty()) {
                    problems.put(name, found);
                }
            }
        }
        System.out.println("custom resources checked against their CRDs: " + checked);
        assertTrue(checked.size() >= 7, "the recipes' custom resources: " + checked);
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
        assertEquals(
                3,
                output.lines().filter(line -> line.startsWith("ok ConfigMap")).count(),
                output);
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

    private static StructuralSchema schemaOf(JsonNode resource) throws IOException {
        String[] groupVersion = resource.path("apiVersion").asText().split("/");
        String name = "/kubernetes-schemas/" + groupVersion[0] + "-" + groupVersion[1] + "-"
                + resource.path("kind").asText() + ".json";
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
