package io.tcpsight.lab;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code finding {...}} lines the lab's reporting clients ({@link ReportingProducer},
 * {@link ReportingConsumer}) print of their reporter's findings.
 */
public final class ReporterFindings {
    private ReporterFindings() {}

    /** The findings a reporting client's process printed. */
    public static List<FindingView> printedIn(String output) throws IOException {
        List<FindingView> findings = new ArrayList<>();
        for (String line : output.split("\n")) {
            if (line.startsWith(ReporterJmx.LINE_PREFIX)) {
                findings.addAll(FindingView.list("[" + line.substring(ReporterJmx.LINE_PREFIX.length()) + "]"));
            }
        }
        return findings;
    }
}
