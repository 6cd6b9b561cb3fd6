package io.tcpsight.agent.listeners;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tcpsight.export.GaugeRows;
import io.tcpsight.host.NetstatCounters;
import io.tcpsight.tcp.ListenQueue;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The listener state as meters of its own, for dashboards that must show a connect storm when no
 * finding is up: each listener's accept queue against its effective backlog (gauges, tagged
 * listener), and the namespace's listen-overflow, listen-drop and SYN-cookie counters; and for a
 * rollout view, the namespace's aborted connections by the kernel's reason (TcpExt TCPAbortOn*:
 * a reset sent). Updated by the listener watch every round; a listener that closed loses its rows.
 */
public final class ListenerMeters implements MeterBinder {
    private final Map<Tags, Long> queueRows = new HashMap<>();
    private final Map<Tags, Long> backlogRows = new HashMap<>();
    private volatile long[] counters = new long[0];
    private GaugeRows acceptQueue;
    private GaugeRows backlog;

    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        acceptQueue = new GaugeRows(MultiGauge.builder("tcpsight.listener.accept.queue")
                .baseUnit("connections")
                .description("Connections waiting in the listener's accept queue")
                .register(registry));
        backlog = new GaugeRows(MultiGauge.builder("tcpsight.listener.backlog")
                .baseUnit("connections")
                .description("The listener's effective backlog: the accept queue's limit")
                .register(registry));
        counter(
                registry,
                0,
                "tcpsight.host.listen.overflows",
                "TcpExt ListenOverflows: SYNs or ACKs a full accept queue dropped");
        counter(
                registry,
                1,
                "tcpsight.host.listen.drops",
                "TcpExt ListenDrops: connection requests a listener dropped");
        counter(
                registry,
                2,
                "tcpsight.host.syncookies.sent",
                "TcpExt SyncookiesSent: SYN cookies sent for a full SYN queue");
        for (int i = FIRST_ABORT; i < COUNTERS.length; i++) {
            int index = i;
            FunctionCounter.builder("tcpsight.host.tcp.aborts", this, meters -> meters.counter(index))
                    .baseUnit("connections")
                    .tags("reason", abortReason(COUNTERS[index]))
                    .description("TcpExt " + COUNTERS[index]
                            + ": connections the kernel ended with a reset, by reason (per network namespace)")
                    .register(registry);
        }
        show();
    }

    /** @param namespaceCounters {@link #COUNTERS} in order; -1 where unknown */
    synchronized void update(List<ListenerState> listeners, long[] namespaceCounters) {
        queueRows.clear();
        backlogRows.clear();
        for (ListenerState listener : listeners) {
            Tags tags = Tags.of("listener", listener.listener);
            ListenQueue queue = listener.queue;
            queueRows.put(tags, queue.acceptQueueLength());
            backlogRows.put(tags, queue.effectiveBacklog());
        }
        counters = namespaceCounters.clone();
        show();
    }

    private void show() {
        if (acceptQueue != null) {
            acceptQueue.show(queueRows);
            backlog.show(backlogRows);
        }
    }

    private void counter(MeterRegistry registry, int index, String name, String description) {
        FunctionCounter.builder(name, this, meters -> meters.counter(index))
                .description(description + " (per network namespace)")
                .register(registry);
    }

    private double counter(int index) {
        long[] values = counters;
        return index < values.length && values[index] >= 0 ? values[index] : Double.NaN;
    }

    /** The TcpExt names, in the order {@link #update} takes them: the listener's three, then the aborts. */
    static final String[] COUNTERS = {
        NetstatCounters.LISTEN_OVERFLOWS,
        NetstatCounters.LISTEN_DROPS,
        NetstatCounters.SYNCOOKIES_SENT,
        "TCPAbortOnData",
        "TCPAbortOnClose",
        "TCPAbortOnMemory",
        "TCPAbortOnTimeout",
        "TCPAbortOnLinger",
        "TCPAbortFailed"
    };

    private static final int FIRST_ABORT = 3;

    /**
     * The reason tag of a TCPAbort* counter, from its name: data (data arrived on a connection this
     * end had closed), close (this end closed with data unread), memory, timeout (retransmissions
     * gave up), linger, failed (the reset itself could not be sent).
     */
    static String abortReason(String counter) {
        return counter.replaceFirst("^TCPAbort(On)?", "").toLowerCase(Locale.ROOT);
    }
}
