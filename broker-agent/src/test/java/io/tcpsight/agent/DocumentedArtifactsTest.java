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
 * Every artifact the docs and recipes name is one the build makes, under the one name the build
 * gives it: a module's jar (its artifactId and the project's version) and the zip its assembly
 * writes (the assembly's finalName), read from the poms, so the docs cannot drift. A page may
 * write {@code <version>} for the version. There is no second, installed name: an operator who
 * copies the jar finds it under the name the pages use.
 */
class DocumentedArtifactsTest {
    private static final List<String> SHIPPED = List.of("broker-agent", "client-metrics", "doctor", "connect-plugin");
    private static final String RELEASE = "<maven.compiler.release>([0-9]+)</maven.compiler.release>";

    @Test
    void everyArtifactNamedInTheDocsIsOneTheBuildMakes() throws IOException {
        Set<String> built = built();
        List<String> wrong = new ArrayList<>();
        Pattern named = Pattern.compile("\\btcpsight-[a-z-]+(?:-(?:[0-9][0-9A-Za-z.-]*?|<version>))?\\.(?:jar|zip)\\b");
        int seen = 0;
        for (Path page : pages()) {
            Matcher name = named.matcher(Files.readString(page));
            while (name.find()) {
                seen++;
                if (!built.contains(name.group())) {
                    wrong.add(page + ": " + name.group());
                }
            }
        }
        assertTrue(seen > 20, "artifact names found: " + seen);
        assertEquals(List.of(), wrong, "names the build does not make; built: " + built);
    }

    /**
     * docs/before-you-install.md says once which Java each piece needs: the release its pom compiles
     * it for (the doctor's 17, for its embedded Kafka 4.x broker; the others the parent's 11).
     */
    @Test
    void theJavaEachPieceNeedsIsTheReleaseItIsCompiledFor() throws IOException {
        String version = version();
        String parentRelease = firstMatch(Files.readString(Path.of("../pom.xml")), RELEASE);
        String table = Files.readString(Path.of("../docs/before-you-install.md"));
        for (String module : SHIPPED) {
            String pom = Files.readString(Path.of("..", module, "pom.xml"));
            Matcher own = Pattern.compile(RELEASE).matcher(pom);
            String release = own.find() ? own.group(1) : parentRelease;
            String file = artifactId(pom) + "-" + version + (module.equals("connect-plugin") ? ".zip" : ".jar");
            String row = table.lines()
                    .filter(line -> line.startsWith("| ") && line.contains("`" + file + "`"))
                    .findFirst()
                    .orElse("");
            assertTrue(
                    row.contains("| " + release + " or later"),
                    module + " (" + file + ") on Java " + release + ": " + row);
        }
    }

    /** Each shipped module's jar, and the zip its assembly writes, with the version and as {@code <version>}. */
    private static Set<String> built() throws IOException {
        String version = version();
        Set<String> built = new TreeSet<>();
        for (String module : SHIPPED) {
            String pom = Files.readString(Path.of("..", module, "pom.xml"));
            built.add(artifactId(pom) + "-" + version + ".jar");
            Matcher assembly = Pattern.compile(
                            "<artifactId>maven-assembly-plugin</artifactId>.*?<finalName>([^<]+)</finalName>",
                            Pattern.DOTALL)
                    .matcher(pom);
            if (assembly.find()) {
                built.add(expand(assembly.group(1), pom, version) + ".zip");
            }
        }
        Set<String> named = new TreeSet<>(built);
        for (String name : built) {
            named.add(name.replace(version, "<version>"));
        }
        return named;
    }

    /** ${project.version} and the pom's own properties, as Maven expands a finalName. */
    private static String expand(String value, String pom, String version) {
        Matcher property = Pattern.compile("\\$\\{([^}]+)}").matcher(value);
        StringBuilder expanded = new StringBuilder();
        while (property.find()) {
            String key = property.group(1);
            String replacement = key.equals("project.version")
                    ? version
                    : firstMatch(pom, "<" + Pattern.quote(key) + ">([^<]+)</" + Pattern.quote(key) + ">");
            property.appendReplacement(expanded, Matcher.quoteReplacement(replacement));
        }
        property.appendTail(expanded);
        return expanded.toString();
    }

    private static String version() throws IOException {
        return firstMatch(Files.readString(Path.of("../pom.xml")), "<version>([^<]+)</version>");
    }

    private static String artifactId(String pom) {
        return firstMatch(pom.substring(pom.indexOf("</parent>")), "<artifactId>([^<]+)</artifactId>");
    }

    /** README, NOTICE, and every page, recipe and Dockerfile under docs/. */
    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(Path.of("../README.md"), Path.of("../NOTICE")));
        try (Stream<Path> docs = Files.walk(Path.of("../docs"))) {
            docs.filter(Files::isRegularFile)
                    .filter(path -> path.toString().matches(".*\\.(md|yaml|yml)$")
                            || path.getFileName().toString().startsWith("Dockerfile"))
                    .forEach(pages::add);
        }
        return pages;
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
