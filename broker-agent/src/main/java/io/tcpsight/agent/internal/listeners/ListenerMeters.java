package io.tcpsight.agent.internal.listeners;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tcpsight.internal.export.GaugeRows;
import io.tcpsight.internal.host.NetstatCounters;
import io.tcpsight.internal.tcp.ListenQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

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
    private volatile TcpExtReading counters = TcpExtReading.NONE;
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
                NetstatCounters.LISTEN_OVERFLOWS,
                "tcpsight.host.listen.overflows",
                "TcpExt ListenOverflows: SYNs or ACKs a full accept queue dropped");
        counter(
                registry,
                NetstatCounters.LISTEN_DROPS,
                "tcpsight.host.listen.drops",
                "TcpExt ListenDrops: connection requests a listener dropped");
        counter(
                registry,
                NetstatCounters.SYNCOOKIES_SENT,
                "tcpsight.host.syncookies.sent",
                "TcpExt SyncookiesSent: SYN cookies sent for a full SYN queue");
        for (String abort : ABORTS) {
            FunctionCounter.builder("tcpsight.host.tcp.aborts", this, meters -> meters.counter(abort))
                    .baseUnit("connections")
                    .tags("reason", abortReason(abort))
                    .description("TcpExt " + abort
                            + ": connections the kernel ended with a reset, by reason (per network namespace)")
                    .register(registry);
        }
        show();
    }

    synchronized void update(List<ListenerState> listeners, TcpExtReading namespaceCounters) {
        queueRows.clear();
        backlogRows.clear();
        for (ListenerState listener : listeners) {
            Tags tags = Tags.of("listener", listener.listener);
            ListenQueue queue = listener.queue;
            queueRows.put(tags, queue.acceptQueueLength());
            backlogRows.put(tags, queue.effectiveBacklog());
        }
        counters = namespaceCounters;
        show();
    }

    private void show() {
        if (acceptQueue != null) {
            acceptQueue.show(queueRows);
            backlog.show(backlogRows);
        }
    }

    private void counter(MeterRegistry registry, String counter, String name, String description) {
        FunctionCounter.builder(name, this, meters -> meters.counter(counter))
                .description(description + " (per network namespace)")
                .register(registry);
    }

    /** NaN where this kernel lacks the counter, or before the first round. */
    private double counter(String name) {
        OptionalLong value = counters.value(name);
        return value.isPresent() ? value.getAsLong() : Double.NaN;
    }

    /** The connections the kernel ended with a reset, by reason. */
    static final List<String> ABORTS = List.of(
            "TCPAbortOnData",
            "TCPAbortOnClose",
            "TCPAbortOnMemory",
            "TCPAbortOnTimeout",
            "TCPAbortOnLinger",
            "TCPAbortFailed");

    /** Every TcpExt counter the listener watch reads: the listeners' three, then the aborts. */
    static final String[] COUNTERS = counters();

    private static String[] counters() {
        List<String> all = new ArrayList<>(List.of(
                NetstatCounters.LISTEN_OVERFLOWS, NetstatCounters.LISTEN_DROPS, NetstatCounters.SYNCOOKIES_SENT));
        all.addAll(ABORTS);
        return all.toArray(new String[0]);
    }

    /**
     * The reason tag of a TCPAbort* counter, from its name: data (data arrived on a connection this
     * end had closed), close (this end closed with data unread), memory, timeout (retransmissions
     * gave up), linger, failed (the reset itself could not be sent).
     */
    static String abortReason(String counter) {
        return counter.replaceFirst("^TCPAbort(On)?", "").toLowerCase(Locale.ROOT);
    }
}
