package io.tcpsight.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link NoticeCoverage#archiveProblems}, the lab's check of each shipped archive, on synthetic ones. */
class NoticeCoverageArchiveTest {
    private static final String LICENSE = "Apache License\nVersion 2.0\n";
    private static final String NOTICE = String.join(
            "\n",
            "tcpsight",
            "",
            "tcpsight-connect-plugin-<version>.zip, lib/:",
            "  - micrometer-core (Micrometer): Apache License 2.0",
            "");

    @TempDir
    Path directory;

    @Test
    void anArchiveWithBothFilesAndEveryJarNamedHasNoProblem() throws IOException {
        Path zip = zip(
                "tcpsight-connect-plugin-1.2.3.zip",
                Map.of(
                        "tcpsight-connect-plugin-1.2.3/doc/LICENSE",
                        LICENSE,
                        "tcpsight-connect-plugin-1.2.3/doc/NOTICE",
                        NOTICE,
                        "tcpsight-connect-plugin-1.2.3/lib/micrometer-core-1.15.0.jar",
                        "",
                        "tcpsight-connect-plugin-1.2.3/lib/tcpsight-connect-plugin-1.2.3.jar",
                        ""));
        assertEquals(
                List.of(),
                NoticeCoverage.archiveProblems(zip, "1.2.3", "tcpsight-connect-plugin-1.2.3/doc/", LICENSE, NOTICE));
    }

    @Test
    void aMissingFileAnotherNoticeAndAnUnnamedJarAreEachOneLine() throws IOException {
        Path zip = zip(
                "tcpsight-connect-plugin-1.2.3.zip",
                Map.of(
                        "tcpsight-connect-plugin-1.2.3/doc/NOTICE", "someone else's notice\n",
                        "tcpsight-connect-plugin-1.2.3/lib/micrometer-core-1.15.0.jar", "",
                        "tcpsight-connect-plugin-1.2.3/lib/jackson-core-2.21.2.jar", ""));
        assertEquals(
                List.of(
                        "tcpsight-connect-plugin-1.2.3.zip holds tcpsight-connect-plugin-1.2.3/doc/LICENSE 0 times,"
                                + " not once",
                        "tcpsight-connect-plugin-1.2.3.zip holds a tcpsight-connect-plugin-1.2.3/doc/NOTICE that is not"
                                + " the repository's NOTICE",
                        "tcpsight-connect-plugin-1.2.3.zip holds lib/jackson-core-2.21.2.jar, which NOTICE does not"
                                + " name"),
                NoticeCoverage.archiveProblems(zip, "1.2.3", "tcpsight-connect-plugin-1.2.3/doc/", LICENSE, NOTICE));
    }

    @Test
    void aJarsNoticeIsInItsMetaInf() throws IOException {
        Path jar = zip(
                "tcpsight-broker-agent-1.2.3.jar",
                Map.of("META-INF/LICENSE", LICENSE, "META-INF/NOTICE", NOTICE, "io/tcpsight/agent/A.class", ""));
        assertEquals(List.of(), NoticeCoverage.archiveProblems(jar, "1.2.3", "META-INF/", LICENSE, NOTICE));
        assertEquals(List.of(NOTICE), NoticeCoverage.entries(jar, "META-INF/NOTICE"));
    }

    private Path zip(String name, Map<String, String> entries) throws IOException {
        Path zip = directory.resolve(name);
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            for (Map.Entry<String, String> entry : new LinkedHashMap<>(entries).entrySet()) {
                out.putNextEntry(new ZipEntry(entry.getKey()));
                out.write(entry.getValue().getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        return zip;
    }
}
