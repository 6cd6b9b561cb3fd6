package io.tcpsight.lab;

import io.tcpsight.export.TcpsightJmx;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.JMException;

/**
 * The findings of a tcpsight reporter in this JVM, as its JMX bean serves them, and the
 * {@code finding {...}} lines the lab's reporting clients ({@link ReportingProducer},
 * {@link ReportingConsumer}) print of them.
 */
public final class ReporterFindings {
    static final String LINE_PREFIX = "finding ";

    private ReporterFindings() {}

    /** The current findings of the reporter of this client.id, one JSON object each. */
    public static String[] json(String clientId) throws JMException {
        return (String[]) ManagementFactory.getPlatformMBeanServer()
                .getAttribute(TcpsightJmx.objectName("ClientMetrics", clientId), "Findings");
    }

    /** The findings a reporting client's process printed. */
    public static List<FindingView> printedIn(String output) throws IOException {
        List<FindingView> findings = new ArrayList<>();
        for (String line : output.split("\n")) {
            if (line.startsWith(LINE_PREFIX)) {
                findings.addAll(FindingView.list("[" + line.substring(LINE_PREFIX.length()) + "]"));
            }
        }
        return findings;
    }
}
