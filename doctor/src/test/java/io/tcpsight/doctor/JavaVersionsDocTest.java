package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Java each piece needs is the release its module is compiled for, stated in one table
 * (docs/before-you-install.md), and every page that says "Java N or later" of a piece says the
 * same N. The doctor was once said to need Java 11 while it is compiled for 17.
 */
class JavaVersionsDocTest {
    private static final Pattern RELEASE =
            Pattern.compile("<maven\\.compiler\\.release>(\\d+)</maven\\.compiler\\.release>");
    private static final Pattern OR_LATER = Pattern.compile("\\bJava (\\d+) or later\\b");
    /** The words that name a piece, in a statement after its "Java N or later". */
    private static final Pattern PIECE = Pattern.compile("\\b(doctor|agent|plugin|reporter)\\b");

    /** Each piece's module: the root POM's release holds unless the module sets its own. */
    private static final Map<String, String> MODULES = Map.of(
            "agent", "broker-agent", "plugin", "connect-plugin", "reporter", "client-metrics", "doctor", "doctor");

    /** The page that is about one piece, for a statement that names none. */
    private static final Map<String, String> PAGE_PIECE =
            Map.of("broker-agent.md", "agent", "connect-plugin.md", "plugin", "doctor.md", "doctor");

    /** The table's rows by the piece their first cell names. */
    private static final Map<String, String> TABLE_ROWS =
            Map.of("broker agent", "agent", "Connect plugin", "plugin", "reporter", "reporter", "doctor", "doctor");

    @Test
    void theTableSaysEachPiecesCompiledRelease() throws IOException {
        Map<String, Integer> table = table();
        assertEquals(MODULES.keySet(), table.keySet(), "the table has a row for each piece: " + table);
        MODULES.forEach((piece, module) ->
                assertEquals(compiledRelease(module), table.get(piece), piece + " (" + module + ") in the table"));
    }

    @Test
    void everyPageSaysTheSameJavaForEachPiece() throws IOException {
        List<String> stated = new ArrayList<>();
        for (Path page : UserPageFiguresTest.userPages()) {
            for (String statement : UserPageFiguresTest.statements(UserPageFiguresTest.prose(page))) {
                Matcher orLater = OR_LATER.matcher(statement);
                while (orLater.find()) {
                    String piece = piece(page, statement.substring(orLater.end()));
                    String where = page + ": " + statement;
                    assertFalse(piece == null, "names no piece, so its Java cannot be checked: " + where);
                    assertEquals(
                            compiledRelease(MODULES.get(piece)),
                            Integer.parseInt(orLater.group(1)),
                            "the " + piece + "'s Java: " + where);
                    stated.add(piece + " " + orLater.group(1) + " in " + page.getFileName());
                }
            }
        }
        // the pages known to restate it: a pattern that stopped matching would pass on nothing
        assertTrue(stated.contains("doctor 17 in README.md"), stated.toString());
        assertTrue(stated.contains("agent 11 in README.md"), stated.toString());
        assertTrue(stated.contains("agent 11 in broker-agent.md"), stated.toString());
        assertTrue(stated.contains("doctor 17 in doctor.md"), stated.toString());
    }

    /** The first piece the statement names after the version, else the page's own piece. */
    private static String piece(Path page, String after) {
        Matcher named = PIECE.matcher(after);
        return named.find() ? named.group(1) : PAGE_PIECE.get(page.getFileName().toString());
    }

    private static Map<String, Integer> table() throws IOException {
        Map<String, Integer> versions = new LinkedHashMap<>();
        String page = Files.readString(Path.of("..", "docs", "before-you-install.md"));
        String section = page.substring(page.indexOf("## What to install, and on which Java"));
        section = section.substring(0, section.indexOf("\n## ", 3));
        for (String row : section.split("\n")) {
            if (!row.startsWith("| ")) {
                continue;
            }
            String[] cells = row.split("\\|");
            String first = cells[1].strip();
            String last = cells[cells.length - 1].strip();
            TABLE_ROWS.forEach((name, piece) -> {
                if (first.startsWith(name)) {
                    Matcher version = Pattern.compile("^(\\d+) or later\\b").matcher(last);
                    assertTrue(version.find(), "the " + piece + "'s Java cell: " + row);
                    versions.put(piece, Integer.parseInt(version.group(1)));
                }
            });
        }
        return versions;
    }

    private static int compiledRelease(String module) {
        try {
            Matcher own = RELEASE.matcher(Files.readString(Path.of("..", module, "pom.xml")));
            Matcher root = RELEASE.matcher(Files.readString(Path.of("..", "pom.xml")));
            if (own.find()) {
                return Integer.parseInt(own.group(1));
            }
            assertTrue(root.find(), "the root POM sets maven.compiler.release");
            return Integer.parseInt(root.group(1));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
