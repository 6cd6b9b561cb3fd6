package io.tcpsight.internal.export;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tcpsight.internal.host.CgroupCpu;
import io.tcpsight.internal.host.HostCounters;
import io.tcpsight.internal.host.SoftnetStat;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.monitor.Round;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * The host's own counters as meters: egress drops per device (at most
 * {@link HostCounters#MAX_DEVICES}), the receive backlog's drops, and this process's CPU
 * throttling. Totals, as the kernel counts them; no per-connection series. A device is
 * registered the first round it is seen.
 */
public final class HostSignalMeters implements MeterBinder, ConnectionMonitor.RoundListener {
    private final ConnectionMonitor monitor;
    private final Map<MeterRegistry, Set<String>> devicesByRegistry = new ConcurrentHashMap<>();

    public HostSignalMeters(ConnectionMonitor monitor) {
        this.monitor = monitor;
        monitor.addListener(this);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        devicesByRegistry.putIfAbsent(registry, ConcurrentHashMap.newKeySet());
        counter(
                registry,
                "tcpsight.host.softnet.drops",
                "packets",
                "packets the receive backlog dropped (net.core.netdev_max_backlog), all CPUs",
                totals -> totals.softnet().map(SoftnetStat::dropped).orElse(0L));
        counter(
                registry,
                "tcpsight.host.cpu.throttled.periods",
                "periods",
                "CPU periods in which this process's cgroup was throttled",
                totals -> totals.cgroup().map(CgroupCpu::throttledPeriods).orElse(0L));
        FunctionCounter.builder(
                        "tcpsight.host.cpu.throttled.time",
                        this,
                        meters -> meters.total(totals -> totals.cgroup()
                                        .map(CgroupCpu::throttledMicros)
                                        .orElse(0L))
                                / 1e6)
                .baseUnit("seconds")
                .description("time this process's cgroup was throttled")
                .register(registry);
        registerDevices();
    }

    private void counter(
            MeterRegistry registry,
            String name,
            String unit,
            String description,
            ToDoubleFunction<HostCounters> value) {
        FunctionCounter.builder(name, this, meters -> meters.total(value))
                .baseUnit(unit)
                .description(description)
                .register(registry);
    }

    private double total(ToDoubleFunction<HostCounters> value) {
        Optional<HostCounters> totals = monitor.hostSignals().flatMap(watch -> watch.totals());
        return totals.map(value::applyAsDouble).orElse(0.0);
    }

    @Override
    public void onRound(Round round) {
        registerDevices();
    }

    private void registerDevices() {
        Optional<HostCounters> totals = monitor.hostSignals().flatMap(watch -> watch.totals());
        if (totals.isEmpty()) {
            return;
        }
        for (Map.Entry<MeterRegistry, Set<String>> registered : devicesByRegistry.entrySet()) {
            for (HostCounters.Device device : totals.get().devices()) {
                String name = device.name();
                if (registered.getValue().size() < HostCounters.MAX_DEVICES
                        && registered.getValue().add(name)) {
                    FunctionCounter.builder("tcpsight.host.egress.drops", this, meters -> meters.egressDrops(name))
                            .baseUnit("packets")
                            .description("packets this host dropped leaving the device: its qdiscs and its driver")
                            .tag("device", name)
                            .register(registered.getKey());
                }
            }
        }
    }

    private double egressDrops(String name) {
        return total(totals -> totals.devices().stream()
                .filter(device -> device.name().equals(name))
                .mapToLong(device -> device.qdiscDrops() + device.driverTxDropped())
                .sum());
    }
}
