package io.tcpsight.lab;

import io.tcpsight.internal.export.TcpsightJmx;
import java.lang.management.ManagementFactory;
import javax.management.JMException;

/** The findings of a tcpsight reporter in this JVM, as its JMX bean serves them. */
public final class ReporterJmx {
    /** How a reporting client prints each finding: this prefix, then the finding's JSON. */
    public static final String LINE_PREFIX = "finding ";

    private ReporterJmx() {}

    /** The current findings of the reporter of this client.id, one JSON object each. */
    public static String[] findings(String clientId) throws JMException {
        return (String[]) ManagementFactory.getPlatformMBeanServer()
                .getAttribute(TcpsightJmx.objectName("ClientMetrics", clientId), "Findings");
    }
}
