package io.tcpsight.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

/**
 * Which third-party jars an archive carries that NOTICE does not name. NOTICE has one section per
 * place that holds jars, headed by an unindented line that starts with the archive's name (its
 * version written {@code <version>}) and the folder ({@code tcpsight-doctor-<version>.zip,
 * broker-lib/:}); its indented lines name each jar by artifactId with its licence. tcpsight's own
 * jars need no line. Written against a file name list, so that a unit test can feed it a synthetic
 * zip and a lab test the real ones; {@link #archiveProblems} is the whole check of one archive.
 */
public final class NoticeCoverage {
    /** "jackson-core-2.21.2.jar", "kafka_2.13-4.3.1.jar": the artifactId ends where "-" and a digit begin the version. */
    private static final Pattern JAR = Pattern.compile("(?:.*/)?([^/]+?)-\\d[^/]*\\.jar");

    private NoticeCoverage() {}

    /**
     * What a shipped archive lacks, one line each; empty when nothing: LICENSE and NOTICE once each
     * in {@code folder} ("tcpsight-doctor-1.0/", "META-INF/"), equal to the repository's, and a
     * NOTICE line for every third-party jar it carries.
     */
    public static List<String> archiveProblems(
            Path archive, String version, String folder, String license, String notice) throws IOException {
        List<String> problems = new ArrayList<>();
        Map<String, String> expected = new TreeMap<>(Map.of("LICENSE", license, "NOTICE", notice));
        expected.forEach((file, text) -> {
            List<String> copies;
            try {
                copies = entries(archive, folder + file);
            } catch (IOException unreadable) {
                problems.add(archive.getFileName() + ": unreadable (" + unreadable + ")");
                return;
            }
            if (copies.size() != 1) {
                problems.add(
                        archive.getFileName() + " holds " + folder + file + " " + copies.size() + " times, not once");
            } else if (!copies.get(0).equals(text)) {
                problems.add(
                        archive.getFileName() + " holds a " + folder + file + " that is not the repository's " + file);
            }
        });
        String name = archive.getFileName().toString();
        for (String jar : unlisted(name, version, jarsByFolder(archive), notice)) {
            problems.add(name + " holds " + jar + ", which NOTICE does not name");
        }
        return problems;
    }

    /**
     * The text of each entry of the zip named {@code name}, in order: read entry by entry, since a
     * jar can hold one name twice and a lookup by name finds only one of them.
     */
    public static List<String> entries(Path zip, String name) throws IOException {
        List<String> texts = new ArrayList<>();
        try (InputStream file = Files.newInputStream(zip);
                ZipInputStream in = new ZipInputStream(file)) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                if (entry.getName().equals(name)) {
                    texts.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                }
            }
        }
        return texts;
    }

    /** Every jar in the zip, by the folder it sits in ("lib/"), below the archive's own top folder. */
    public static Map<String, List<String>> jarsByFolder(Path zip) throws IOException {
        Map<String, List<String>> jars = new TreeMap<>();
        try (ZipFile archive = new ZipFile(zip.toFile())) {
            Enumeration<? extends ZipEntry> entries = archive.entries();
            while (entries.hasMoreElements()) {
                String name = entries.nextElement().getName();
                if (!name.endsWith(".jar")) {
                    continue;
                }
                String[] parts = name.split("/");
                String folder = parts.length >= 3 ? parts[parts.length - 2] + "/" : "";
                jars.computeIfAbsent(folder, ignored -> new ArrayList<>()).add(parts[parts.length - 1]);
            }
        }
        return jars;
    }

    /**
     * The jars of {@code archive} (its file name) that NOTICE's section for their folder does not
     * name, each as "folder/jar", or the folder alone when NOTICE has no section for it.
     */
    public static List<String> unlisted(
            String archive, String version, Map<String, List<String>> jarsByFolder, String notice) {
        String named = archive.replace(version, "<version>");
        List<String> unlisted = new ArrayList<>();
        jarsByFolder.forEach((folder, jars) -> {
            List<String> thirdParty = thirdParty(jars);
            if (thirdParty.isEmpty()) {
                return;
            }
            String heading = folder.isEmpty() ? named : named + ", " + folder;
            String section = section(notice, heading);
            if (section.isEmpty()) {
                unlisted.add(folder + " (no section \"" + heading + "\" in NOTICE)");
                return;
            }
            for (String jar : thirdParty) {
                if (!names(section, artifactId(jar))) {
                    unlisted.add(folder + jar);
                }
            }
        });
        return unlisted;
    }

    public static String artifactId(String jar) {
        Matcher matcher = JAR.matcher(jar);
        return matcher.matches() ? matcher.group(1) : jar;
    }

    /** The indented lines under the unindented line that starts with {@code heading}; empty when there is none. */
    public static String section(String notice, String heading) {
        StringBuilder section = new StringBuilder();
        boolean inside = false;
        for (String line : notice.split("\n", -1)) {
            boolean unindented = !line.isBlank() && !Character.isWhitespace(line.charAt(0));
            if (unindented) {
                inside = line.startsWith(heading);
            } else if (inside) {
                section.append(line).append('\n');
            }
        }
        return section.toString();
    }

    private static List<String> thirdParty(Collection<String> jars) {
        List<String> others = new ArrayList<>();
        for (String jar : jars) {
            if (!jar.startsWith("tcpsight-")) {
                others.add(jar);
            }
        }
        return others;
    }

    /** The artifactId as a whole name: "kafka-clients" does not name "kafka-clients-extra", nor "kafka" it. */
    private static boolean names(String section, String artifactId) {
        return Pattern.compile("(?<![\\w.-])" + Pattern.quote(artifactId) + "(?![\\w.-])")
                .matcher(section)
                .find();
    }
}
