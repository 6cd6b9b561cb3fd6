package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.diagnose.finding.Rates;
import io.tcpsight.internal.diagnose.finding.RuleId;
import io.tcpsight.internal.tuning.BdpSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A figure the user pages compute is the rules' own: a buffer of B bytes moves at most B a round
 * trip ({@link Rates#ceilingBytesPerSecond}), and an alert count is what docs/alerts holds.
 * Measured figures live in benchmarks.md with their date and commit; a page that quotes one cites
 * it. Two pages once gave the broker's default send buffer 16 and 8.2 Mbit/s over the same RTT,
 * and the alert table counted 17 of 19; this test is what keeps them from drifting apart again. The
 * MirrorMaker 2 recipe's fetch sizes once were two BDPs where the rule asks nine: they too are held
 * to the rule's arithmetic.
 */
class UserPageFiguresTest {
    /** The one phrasing of a buffer's ceiling: "102400 bytes a round trip: 8.2 Mbit/s over 100 ms". */
    static final Pattern BUFFER_CAP =
            Pattern.compile("(\\d[\\d,]*) bytes a round trip: (\\d+(?:\\.(\\d+))?) Mbit/s over (\\d+(?:\\.\\d+)?) ms");

    /** A finding's own evidence in an example: "windowCeiling=49152 bytes, ceilingRate=3.92 Mbit/s". */
    private static final Pattern EVIDENCE_WINDOW = Pattern.compile("[\\w.]+=(\\d+) bytes");

    private static final Pattern EVIDENCE_CEILING = Pattern.compile("ceilingRate=(\\d+(?:\\.\\d+)?) Mbit/s");
    private static final Pattern EVIDENCE_RTT = Pattern.compile("rtt=(\\d+(?:\\.\\d+)?) ms");
    private static final Pattern FINDING_LINE = Pattern.compile("(?m)^\\s*tcpsight (?:info|warn|critical) ");

    /**
     * Kafka's buffer defaults and the unscaled window: the sizes pages put a rate on. Not the middle
     * of a tcp_rmem or tcp_wmem triple ("4096 131072 33554432"), which is a starting size.
     */
    private static final Pattern KNOWN_BUFFER = Pattern.compile("(?<!4096 )\\b(65535|65536|102400|131072)\\b");

    private static final Pattern RATE = Pattern.compile("\\d Mbit/s");
    private static final Path DOCS = Path.of("..", "docs");
    /**
     * What a measured share is a share of ("of the line", "on the line", "of a core", "of the
     * broker's CPU", "of a 100 ms, 200 Mbit/s link"): every share in a statement that says so is a
     * figure only a run can give.
     */
    private static final Pattern MEASURED_OF =
            Pattern.compile("\\b(?:of|on) (?:the|a|an) [\\w' ,]{0,24}?(?:line|link|core|CPU)\\b");

    /**
     * Where a share or a series count starts: a whole number, not an estimate or a bound ("about 4.6
     * %", "at most 16 series"), which the page computes where it states it.
     */
    private static final String NOT_AN_ESTIMATE = "(?<!about |at most |[\\d.,-])";

    /** A share: "92.7-95.8 %", "0.23%". */
    private static final Pattern SHARE = Pattern.compile(NOT_AN_ESTIMATE + "(\\d[\\d,.]*(?:-\\d[\\d,.]*)?) ?%");

    /** A series count ("344 series"), not a count per unit ("84 series per tag set"). */
    private static final Pattern SERIES = Pattern.compile(NOT_AN_ESTIMATE + "(\\d[\\d,]*) series\\b(?! per )");

    private static final Pattern ALERT_NAME = Pattern.compile("(?m)^\\s*- alert: (\\w+)");
    private static final Path ALERT_RULES = DOCS.resolve("alerts").resolve("tcpsight-alerts.yml");

    @Test
    void everyBufferCeilingAPageStatesIsTheRulesArithmetic() {
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Path page : userPages()) {
            Matcher cap = BUFFER_CAP.matcher(prose(page));
            while (cap.find()) {
                checked++;
                long bytes = Long.parseLong(cap.group(1).replace(",", ""));
                long rttMicros = Math.round(Double.parseDouble(cap.group(4)) * 1000);
                int decimals = cap.group(3) == null ? 0 : cap.group(3).length();
                String computed = String.format(Locale.ROOT, "%." + decimals + "f", mbit(bytes, rttMicros));
                if (!computed.equals(cap.group(2))) {
                    wrong.add(page + ": \"" + cap.group() + "\", the rules say " + computed + " Mbit/s");
                }
            }
        }
        assertTrue(checked >= 8, "buffer ceilings found: " + checked);
        assertEquals(List.of(), wrong, "buffer ceilings that are not the rules' arithmetic");
    }

    @Test
    void everyExampleFindingsCeilingIsItsWindowOverItsRtt() {
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Path page : userPages()) {
            String text = read(page);
            Matcher ceiling = EVIDENCE_CEILING.matcher(text);
            while (ceiling.find()) {
                int findingStart = lastMatchStart(FINDING_LINE, text, ceiling.start());
                String before = text.substring(Math.max(findingStart, 0), ceiling.start());
                String window = lastGroup(EVIDENCE_WINDOW, before);
                String rtt = lastGroup(EVIDENCE_RTT, before + text.substring(ceiling.start(), ceiling.end()));
                if (findingStart < 0 || window.isEmpty() || rtt.isEmpty()) {
                    wrong.add(page + ": \"" + ceiling.group() + "\" without its window or RTT in the finding");
                    continue;
                }
                checked++;
                if (!withinEvidenceRounding(Long.parseLong(window), Double.parseDouble(rtt), ceiling.group(1))) {
                    wrong.add(page + ": " + window + " bytes over rtt=" + rtt + " ms is not " + ceiling.group());
                }
            }
        }
        assertTrue(checked >= 3, "example ceilings found: " + checked);
        assertEquals(List.of(), wrong, "example findings whose ceiling is not their window over their RTT");
    }

    /**
     * A rate put on one of the buffer sizes is the rules' arithmetic in the one phrasing, or a
     * measurement that cites benchmarks.md: never a third figure of its own.
     */
    @Test
    void aRateOnAKnownBufferSizeIsEitherTheRulesOrCitesItsMeasurement() {
        List<String> loose = new ArrayList<>();
        for (Path page : userPages()) {
            if (page.endsWith("benchmarks.md") || page.endsWith("lab.md")) {
                // the measurements themselves, and the lab's own bounds for contributors
                continue;
            }
            for (String statement : statements(prose(page))) {
                Matcher size = KNOWN_BUFFER.matcher(statement);
                if (!size.find() || !RATE.matcher(statement).find() || statement.contains("benchmarks.md")) {
                    continue;
                }
                boolean stated = false;
                Matcher cap = BUFFER_CAP.matcher(statement);
                while (cap.find()) {
                    stated |= cap.group(1).replace(",", "").equals(size.group(1));
                }
                if (!stated) {
                    loose.add(page + ": " + statement);
                }
            }
        }
        assertEquals(
                List.of(),
                loose,
                "a rate on a buffer size in neither the rules' phrasing nor cited from benchmarks.md");
    }

    /**
     * A measured share or series count a page quotes is one benchmarks.md records, written the same
     * way: pages once said one MirrorMaker task reached 82-89 % where benchmarks.md says 83-89 %.
     */
    @Test
    void everyMeasuredShareOrSeriesCountIsOneBenchmarksRecords() {
        String benchmarks = flat(DOCS.resolve("benchmarks.md"));
        List<String> unrecorded = new ArrayList<>();
        for (Path page : userPages()) {
            if (page.endsWith("benchmarks.md") || page.endsWith("lab.md")) {
                continue; // the measurements themselves, and the lab's own runs for contributors
            }
            unrecorded.addAll(unrecordedFigures(prose(page), benchmarks).stream()
                    .map(figure -> page + ": " + figure)
                    .collect(Collectors.toList()));
        }
        assertEquals(List.of(), unrecorded, "a measured figure that benchmarks.md does not record");
    }

    @Test
    void aFigureIsRecordedOnlyAsTheSameNumbers() {
        String benchmarks = "One task stays near 83-89 %; 344 series in a 42 KB scrape; 0.23 % of a core; "
                + "2026-11-24, `1d8fa65`; kept the series at 426; 2.08, 1.87 %; 24 s, 65 MB; 5 % of the line.";
        assertEquals(
                List.of(),
                unrecordedFigures(
                        "One task read 83-89% on the line. The agent took 2.08 % of a core, then 1.87 % of a core. "
                                + "A scrape held 344 series, later 426 series. It may cost about 7 % of a core. "
                                + "That is 3 + at most 9 series, 12 series per tag set. "
                                + "A threshold of 80 % of the target is the rule's.",
                        benchmarks));
        assertEquals(
                List.of("82-89%", "0.2 %", "3 %", "89 %", "24 %", "360 series", "65 series", "97 %"),
                unrecordedFigures(
                        "One task read 82-89% on the line. It used 0.2 % of a core, then 3 % of a core. "
                                + "Defaults moved 89 % of the line, and 24 % of the line later. "
                                + "A scrape held 360 series and 65 series. It went from 5 % of the line to 97 %.",
                        benchmarks));
    }

    /**
     * The measured figures of a page's prose that the benchmarks' text does not hold as the same
     * figure: a share as a share ("83-89 %", or first of a list, "2.08, 1.87 %"), a count as a series
     * count ("344 series", "the series at 426"); never a range's end, a date's day or a commit's tail.
     */
    static List<String> unrecordedFigures(String prose, String benchmarks) {
        List<String> unrecorded = new ArrayList<>();
        for (String statement : statements(prose)) {
            boolean measured = MEASURED_OF.matcher(statement).find();
            Matcher share = SHARE.matcher(statement);
            while (measured && share.find()) {
                String whole = wholeNumber(share.group(1).replaceAll("[.,]$", ""));
                if (!Pattern.compile(whole + "(?:,? (?:and )?\\d[\\d.]*(?:-\\d[\\d.]*)?)* ?%")
                        .matcher(benchmarks)
                        .find()) {
                    unrecorded.add(share.group());
                }
            }
            Matcher series = SERIES.matcher(statement);
            while (series.find()) {
                String whole = wholeNumber(series.group(1));
                if (!Pattern.compile(whole + " series|series at " + whole)
                        .matcher(benchmarks)
                        .find()) {
                    unrecorded.add(series.group());
                }
            }
        }
        return unrecorded;
    }

    /** A number as a whole figure: not a range's end, a date's day or a commit's hex tail. */
    private static String wholeNumber(String number) {
        return "(?<![\\w.,-])" + Pattern.quote(number) + "(?![\\d]|[.,-]\\d)";
    }

    /**
     * The MirrorMaker 2 recipe takes the replication consumer's sizes from the config provider, for
     * the cluster alias it declares; the values it writes out for an image without the plugin are
     * the fetch-size rule's (BdpSettings) for the path and counts it states beside them.
     */
    @Test
    void theMirrorMakerRecipesFetchSizesAreTheProvidersAndItsFallbackTheRulesArithmetic() throws IOException {
        String recipe =
                Files.readString(DOCS.resolve("kubernetes").resolve("strimzi").resolve("kafka-mirrormaker2.yaml"));
        for (String key :
                List.of("fetch.max.bytes", "max.partition.fetch.bytes", "max.poll.records", "receive.buffer.bytes")) {
            assertTrue(
                    Pattern.compile("(?m)^ +source\\.consumer\\." + Pattern.quote(key) + ": \\$\\{tcpsight:fetch/far:"
                                    + Pattern.quote(key) + "}$")
                            .matcher(recipe)
                            .find(),
                    "source.consumer." + key + " from ${tcpsight:fetch/far:" + key + "}");
        }
        assertTrue(
                Pattern.compile(
                                "(?m)^ +config\\.providers\\.tcpsight\\.param\\.tcpsight\\.cluster\\.far\\.bootstrap\\.servers:")
                        .matcher(recipe)
                        .find(),
                "the alias far declared among the provider's params");

        Matcher path = Pattern.compile("At (\\d+) ms and (\\d+) Mbit/s").matcher(recipe);
        Matcher counts = Pattern.compile("with (\\d+) partitions? a far broker in each fetch and (\\d+) far brokers")
                .matcher(recipe);
        Matcher records =
                Pattern.compile("tcpsight\\.fetch\\.record\\.bytes=(\\d+)").matcher(recipe);
        assertTrue(path.find() && counts.find() && records.find(), "the path and counts the written values are for");
        BdpSettings.Recommendation rule = BdpSettings.recommend(new BdpSettings.Input(
                        Long.parseLong(path.group(1)) * 1000,
                        Double.parseDouble(path.group(2)) * 1e6 / 8,
                        Integer.parseInt(counts.group(1)),
                        null,
                        null,
                        Long.parseLong(records.group(1)))
                .fetchingFrom(Integer.parseInt(counts.group(2))));
        Map<String, String> written = new TreeMap<>();
        Matcher value = Pattern.compile("(?m)^# +source\\.consumer\\.([a-z.]+): (-?\\d+)$")
                .matcher(recipe);
        while (value.find()) {
            written.put(value.group(1), value.group(2));
        }
        assertEquals(
                new TreeMap<>(Map.of(
                        "fetch.max.bytes", Long.toString(rule.fetchMaxBytes()),
                        "max.partition.fetch.bytes", Long.toString(rule.maxPartitionFetchBytes()),
                        "max.poll.records", Integer.toString(rule.maxPollRecords()),
                        "receive.buffer.bytes", Integer.toString(rule.receiveBufferBytes()))),
                written,
                "the recipe's written values against the rule's for " + path.group() + ", " + counts.group());
        String bdp = "BDP = " + path.group(1) + " ms x " + path.group(2) + " Mbit/s = " + rule.bdpBytes()
                + " bytes; nine BDPs a fetch = " + 9 * rule.bdpBytes() + " bytes";
        assertTrue(recipe.contains(bdp), bdp);
    }

    @Test
    void everyAlertCountAndTableIsTheRuleFiles() throws IOException {
        String rules = Files.readString(ALERT_RULES);
        Set<String> alerts = new TreeSet<>();
        int perRule = 0;
        // each alert's block runs to the next alert or group; a finding rule's alert carries its rule as a label
        for (String block : rules.split("(?m)^\\s*- alert: ")) {
            Matcher name = Pattern.compile("\\A(\\w+)\\s*$", Pattern.MULTILINE).matcher(block);
            if (!name.find()) {
                continue;
            }
            alerts.add(name.group(1));
            if (Pattern.compile("(?m)^\\s+rule: [a-z-]+\\s*$")
                    .matcher(block.split("(?m)^  - name: ")[0])
                    .find()) {
                perRule++;
            }
        }
        assertTrue(alerts.size() >= 20 && perRule >= 17, alerts.size() + " alerts, " + perRule + " per rule");
        assertEquals(
                alerts,
                names(ALERT_NAME, Files.readString(DOCS.resolve("kubernetes").resolve("prometheusrule.yaml"))),
                "the PrometheusRule's alerts");

        String table = Files.readString(DOCS.resolve("alerts").resolve("README.md"));
        Set<String> listed = names(Pattern.compile("(?m)^\\| `(Tcpsight\\w+)` \\|"), table);
        assertEquals(alerts, listed, "docs/alerts/README.md's table lists every alert");

        List<String> wrong = new ArrayList<>();
        Pattern total = Pattern.compile("\\b(\\d+) alerts\\b");
        Pattern ruled = Pattern.compile("finding rule that can (?:be )?warn(?: or (?:be )?critical)? \\((\\d+)\\)");
        Pattern ruleIds = Pattern.compile("R = rule ids \\((\\d+)\\)");
        int counts = 0;
        for (Path page : userPages()) {
            String text = flat(page);
            counts += mismatches(total, text, alerts.size(), page, wrong);
            counts += mismatches(ruled, text, perRule, page, wrong);
            counts += mismatches(ruleIds, text, RuleId.values().length, page, wrong);
        }
        assertTrue(counts >= 4, "counts found: " + counts);
        assertEquals(
                List.of(),
                wrong,
                "counts that are not the rule files' (" + alerts.size() + " alerts, " + perRule
                        + " per finding rule) or the rule ids' (" + RuleId.values().length + ")");
    }

    private static int mismatches(Pattern count, String text, int actual, Path page, List<String> wrong) {
        Matcher stated = count.matcher(text);
        int seen = 0;
        while (stated.find()) {
            seen++;
            if (Integer.parseInt(stated.group(1)) != actual) {
                wrong.add(page + ": \"" + stated.group() + "\", there are " + actual);
            }
        }
        return seen;
    }

    static double mbit(long bytes, long rttMicros) {
        return Rates.ceilingBytesPerSecond(bytes, rttMicros) * 8 / 1e6;
    }

    /**
     * Evidence prints a double with three significant digits, so the RTT shown stands for half a
     * unit in its last digit either way, and the ceiling shown for its own rounding.
     */
    static boolean withinEvidenceRounding(long windowBytes, double shownRttMillis, String shownCeiling) {
        double rttSlack = halfUnitInLastOfThreeDigits(shownRttMillis);
        double ceiling = Double.parseDouble(shownCeiling);
        double ceilingSlack = halfUnitInLastOfThreeDigits(ceiling);
        double highest = mbit(windowBytes, Math.round((shownRttMillis - rttSlack) * 1000));
        double lowest = mbit(windowBytes, Math.round((shownRttMillis + rttSlack) * 1000));
        return ceiling + ceilingSlack >= lowest && ceiling - ceilingSlack <= highest;
    }

    private static double halfUnitInLastOfThreeDigits(double value) {
        return 0.5 * Math.pow(10, Math.floor(Math.log10(value)) - 2);
    }

    /** README and every page under docs/ a user reads. */
    static List<Path> userPages() {
        List<Path> pages = new ArrayList<>(List.of(Path.of("..", "README.md")));
        try (Stream<Path> docs = Files.walk(DOCS)) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }

    /** A page's text outside fenced code blocks, each run of white space one space (Markdown wraps lines anywhere). */
    static String prose(Path page) {
        String[] fenced = read(page).split("(?m)^\\s*```.*$", -1);
        StringBuilder prose = new StringBuilder();
        for (int i = 0; i < fenced.length; i += 2) {
            prose.append(fenced[i]).append(' ');
        }
        return prose.toString().replaceAll("\\s+", " ");
    }

    /** A page's whole text, code blocks included, each run of white space one space. */
    static String flat(Path page) {
        return read(page).replaceAll("\\s+", " ");
    }

    /** Sentences and table cells. */
    static List<String> statements(String prose) {
        return Stream.of(prose.split("\\|| (?=[-*] )|(?<=[.!?]) (?=[A-Z`(\\[])"))
                .map(String::strip)
                .filter(statement -> !statement.isEmpty())
                .collect(Collectors.toList());
    }

    private static String read(Path page) {
        try {
            return Files.readString(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Set<String> names(Pattern pattern, String text) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

    private static int lastMatchStart(Pattern pattern, String text, int before) {
        Matcher matcher = pattern.matcher(text).region(0, before);
        int start = -1;
        while (matcher.find()) {
            start = matcher.start();
        }
        return start;
    }

    private static String lastGroup(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        String last = "";
        while (matcher.find()) {
            last = matcher.group(1);
        }
        return last;
    }
}
