package io.tcpsight.internal.export;

import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.FindingJson;
import io.tcpsight.internal.diagnose.finding.Severity;
import io.tcpsight.internal.model.IntervalStats;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.monitor.JudgedConnection;
import io.tcpsight.internal.sampling.ConnectionSample;
import io.tcpsight.internal.sampling.TrackedConnection;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Optional;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/** The JMX view of a monitor under io.tcpsight:type=&lt;component&gt;,name=&lt;name&gt;. */
public final class TcpsightJmx implements TcpsightStatusMBean, AutoCloseable {
    public static final String DOMAIN = "io.tcpsight";
    private static final int WORST = 10;

    private final ConnectionMonitor monitor;
    private final ObjectName name;

    private TcpsightJmx(ConnectionMonitor monitor, ObjectName name) {
        this.monitor = monitor;
        this.name = name;
    }

    public static ObjectName objectName(String type, String name) throws JMException {
        return new ObjectName(DOMAIN + ":type=" + type + ",name=" + ObjectName.quote(name));
    }

    /** Registers; an MBean left by an earlier instance of the same name is replaced. */
    public static TcpsightJmx register(ConnectionMonitor monitor, String type, String name) throws JMException {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName objectName = objectName(type, name);
        TcpsightJmx bean = new TcpsightJmx(monitor, objectName);
        if (server.isRegistered(objectName)) {
            server.unregisterMBean(objectName);
        }
        server.registerMBean(new StandardMBean(bean, TcpsightStatusMBean.class), objectName);
        return bean;
    }

    @Override
    public int getTrackedConnections() {
        return monitor.registry().size();
    }

    @Override
    public long getRefusedConnections() {
        return monitor.registry().refused();
    }

    @Override
    public int getFindingCount() {
        return monitor.board().current().size();
    }

    @Override
    public int getWarnCount() {
        return monitor.board().countBySeverity().get(Severity.WARN);
    }

    @Override
    public int getCriticalCount() {
        return monitor.board().countBySeverity().get(Severity.CRITICAL);
    }

    @Override
    public String[] getFindings() {
        List<Finding> findings = monitor.board().current();
        return findings.stream().map(FindingJson::of).toArray(String[]::new);
    }

    @Override
    public String[] getWorstConnections() {
        return monitor.worstConnections(WORST).stream()
                .map(TcpsightJmx::describe)
                .toArray(String[]::new);
    }

    static String describe(JudgedConnection judged) {
        TrackedConnection connection = judged.connection();
        ConnectionSample sample = judged.sample();
        Optional<IntervalStats> interval = sample.interval();
        return String.format(
                "%s owner=%s rtt=%.2fms wscale=%s snd_wnd=%s cwnd=%d retrans=%d rwnd_limited=%.2f sndbuf_limited=%.2f",
                connection.identity().describe(),
                connection.identity().ownerKnownBy().label(),
                sample.rttMicros() / 1000.0,
                sample.options().windowScaling() ? sample.sndWindowScale() + "," + sample.rcvWindowScale() : "off",
                sample.sndWindowBytes().isPresent()
                        ? Long.toString(sample.sndWindowBytes().getAsLong())
                        : "unknown",
                sample.sndCwnd(),
                sample.totalRetrans(),
                interval.map(IntervalStats::rwndLimitedRatio).orElse(0.0),
                interval.map(IntervalStats::sndbufLimitedRatio).orElse(0.0));
    }

    @Override
    public void close() {
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (JMException alreadyGone) {
            // nothing to undo
        }
    }
}
