package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Java each piece needs is the release its module is compiled for, stated in one table
 * (docs/before-you-install.md), and every page that says "Java N or later", "compiled for Java N"
 * or "runs on Java N" of a piece says the same N. The doctor was once said to need Java 11 while
 * it is compiled for 17. Statements are read by spans, not grammar: "the doctor runs on Java 11 or
 * later like the agent" would be read as the agent's.
 */
class JavaVersionsDocTest {
    private static final Pattern RELEASE =
            Pattern.compile("<maven\\.compiler\\.release>(\\d+)</maven\\.compiler\\.release>");
    /**
     * What a piece needs: "Java 11 or later" (the pieces follow), "compiled for Java 17" and "runs on
     * Java 17" (they come before).
     */
    private static final Pattern NEEDS =
            Pattern.compile("Java (\\d+) or later|(?:compiled for|runs on) Java (\\d+)\\b(?! or later)");
    /** Any Java a statement names ("Java 24 and later", "Java 17"): where the pieces of one end. */
    private static final Pattern ANY_JAVA = Pattern.compile("\\b(?:" + NEEDS.pattern() + "|Java \\d+)\\b");
    /** The words that name a piece. */
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
                List<int[]> mentions = new ArrayList<>();
                Matcher any = ANY_JAVA.matcher(statement);
                while (any.find()) {
                    mentions.add(new int[] {any.start(), any.end()});
                }
                for (int i = 0; i < mentions.size(); i++) {
                    String mention = statement.substring(mentions.get(i)[0], mentions.get(i)[1]);
                    Matcher need = NEEDS.matcher(mention);
                    if (!need.matches()) {
                        continue;
                    }
                    // "Java 11 or later for the agent, the plugin and the reporter": the pieces after it, up
                    // to the next Java it names; "the plugin is compiled for Java 11": the pieces before it,
                    // back to the last Java it named or a heading
                    boolean piecesFollow = need.group(1) != null;
                    String span = piecesFollow
                            ? statement.substring(
                                    mentions.get(i)[1],
                                    i + 1 < mentions.size() ? mentions.get(i + 1)[0] : statement.length())
                            : statement.substring(
                                    Math.max(
                                            i > 0 ? mentions.get(i - 1)[1] : 0,
                                            // a heading ends what came before (the splitter keeps it)
                                            statement.lastIndexOf('#', mentions.get(i)[0]) + 1),
                                    mentions.get(i)[0]);
                    Set<String> pieces = pieces(page, span);
                    String where = page + ": " + statement;
                    assertFalse(pieces.isEmpty(), "names no piece, so its Java cannot be checked: " + where);
                    int version = Integer.parseInt(piecesFollow ? need.group(1) : need.group(2));
                    for (String piece : pieces) {
                        assertEquals(
                                compiledRelease(MODULES.get(piece)), version, "the " + piece + "'s Java: " + where);
                        stated.add(piece + " " + version + " in " + page.getFileName());
                    }
                }
            }
        }
        // the pages known to restate it: a pattern that stopped matching would pass on nothing
        assertTrue(stated.contains("doctor 17 in README.md"), stated.toString());
        assertTrue(stated.contains("reporter 11 in README.md"), stated.toString());
        assertTrue(stated.contains("agent 11 in broker-agent.md"), stated.toString());
        assertTrue(stated.contains("doctor 17 in doctor.md"), stated.toString());
        assertTrue(stated.contains("plugin 11 in before-you-install.md"), stated.toString());
        assertTrue(stated.contains("doctor 17 in architecture.md"), stated.toString());
    }

    /** Every piece the text names, else the page's own piece. */
    private static Set<String> pieces(Path page, String text) {
        Set<String> pieces = new TreeSet<>();
        Matcher named = PIECE.matcher(text);
        while (named.find()) {
            pieces.add(named.group(1));
        }
        String own = PAGE_PIECE.get(page.getFileName().toString());
        if (pieces.isEmpty() && own != null) {
            pieces.add(own);
        }
        return pieces;
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

    /** Each module's release, read from the POMs once. */
    private static final Map<String, Integer> RELEASES = new HashMap<>();

    private static int compiledRelease(String module) {
        return RELEASES.computeIfAbsent(module, JavaVersionsDocTest::readRelease);
    }

    private static int readRelease(String module) {
        try {
            String modulePom = Files.readString(Path.of("..", module, "pom.xml"));
            String rootPom = Files.readString(Path.of("..", "pom.xml"));
            // a release set in the compiler plugin's own configuration or a profile would escape this reading
            assertFalse(
                    modulePom.contains("<release>") || rootPom.contains("<release>"),
                    "a <release> beside the property");
            assertFalse(modulePom.contains("<profile>"), module + "'s POM has a profile that may set its release");
            Matcher own = RELEASE.matcher(modulePom);
            Matcher root = RELEASE.matcher(rootPom);
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
