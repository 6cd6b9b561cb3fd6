package io.tcpsight.internal.export;

/** What JMX shows of one tcpsight component (io.tcpsight:type=...,name=...). */
public interface TcpsightStatusMBean {
    int getTrackedConnections();

    long getRefusedConnections();

    int getFindingCount();

    int getWarnCount();

    int getCriticalCount();

    /** Current findings, one JSON object each (the shared finding format). */
    String[] getFindings();

    /** The worst connections: most window-limited first, then highest RTT. */
    String[] getWorstConnections();
}
