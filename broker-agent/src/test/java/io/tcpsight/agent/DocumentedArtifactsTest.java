package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every artifact the docs and recipes name is one the build makes, under one name each: the
 * file the build writes (its artifactId and the project's version, or {@code <version>}), or the
 * one installed name the recipes copy it to. Read from the poms, so the docs cannot drift.
 */
class DocumentedArtifactsTest {
    /** The installed names: a build's file copied to a stable path. */
    private static final Set<String> INSTALLED = Set.of("tcpsight-broker-agent.jar", "tcpsight-client-metrics.jar");

    @Test
    void everyArtifactNamedInTheDocsIsOneTheBuildMakes() throws IOException {
        String version = firstMatch(Files.readString(Path.of("../pom.xml")), "<version>([^<]+)</version>");
        Set<String> built = new TreeSet<>();
        for (String module : List.of("broker-agent", "client-metrics", "doctor", "connect-plugin")) {
            String pom = Files.readString(Path.of("..", module, "pom.xml"));
            String artifactId = firstMatch(pom.substring(pom.indexOf("</parent>")), "<artifactId>([^<]+)</artifactId>");
            for (String extension : List.of("jar", "zip")) {
                built.add(artifactId + "-" + version + "." + extension);
                built.add(artifactId + "-<version>." + extension);
            }
        }
        List<String> wrong = new ArrayList<>();
        Pattern named = Pattern.compile("\\btcpsight-[a-z-]+(?:-(?:[0-9][0-9A-Za-z.-]*?|<version>))?\\.(?:jar|zip)\\b");
        List<Path> pages = new ArrayList<>(List.of(Path.of("../README.md")));
        try (Stream<Path> docs = Files.walk(Path.of("../docs"))) {
            docs.filter(Files::isRegularFile)
                    .filter(path -> path.toString().matches(".*\\.(md|yaml|yml)$")
                            || path.getFileName().toString().startsWith("Dockerfile"))
                    .forEach(pages::add);
        }
        int seen = 0;
        for (Path page : pages) {
            Matcher name = named.matcher(Files.readString(page));
            while (name.find()) {
                seen++;
                if (!built.contains(name.group()) && !INSTALLED.contains(name.group())) {
                    wrong.add(page + ": " + name.group());
                }
            }
        }
        assertTrue(seen > 20, "artifact names found: " + seen);
        assertEquals(List.of(), wrong, "names the build does not make; built: " + built + ", installed: " + INSTALLED);
    }

    /** The recipes run the Kafka release the build compiles and tests against, and only that one. */
    @Test
    void everyRecipeRunsTheKafkaTheBuildUses() throws IOException {
        String kafka = firstMatch(Files.readString(Path.of("../pom.xml")), "<kafka.version>([^<]+)</kafka.version>");
        Pattern version = Pattern.compile(
                "apache/kafka:([0-9][0-9.]*)|-kafka-([0-9][0-9.]*[0-9])|^\\s+version: ([0-9][0-9.]*)\\s*$",
                Pattern.MULTILINE);
        List<String> others = new ArrayList<>();
        int seen = 0;
        try (Stream<Path> recipes = Files.walk(Path.of("../docs/kubernetes"))) {
            for (Path recipe : (Iterable<Path>) recipes.filter(Files::isRegularFile)::iterator) {
                Matcher found = version.matcher(Files.readString(recipe));
                while (found.find()) {
                    String named = found.group(1) != null
                            ? found.group(1)
                            : found.group(2) != null ? found.group(2) : found.group(3);
                    seen++;
                    if (!named.equals(kafka)) {
                        others.add(recipe + ": " + found.group().strip());
                    }
                }
            }
        }
        assertTrue(seen >= 4, "Kafka versions found in the recipes: " + seen);
        assertEquals(List.of(), others, "recipes on another Kafka than " + kafka);
    }

    private static String firstMatch(String text, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertTrue(matcher.find(), regex);
        return matcher.group(1);
    }
}
