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

    private static String firstMatch(String text, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertTrue(matcher.find(), regex);
        return matcher.group(1);
    }
}
