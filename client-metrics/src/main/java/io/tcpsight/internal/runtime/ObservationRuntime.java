package io.tcpsight.internal.runtime;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.coverage.TrackingRules;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.FindingsBoard;
import io.tcpsight.internal.diagnose.host.HostSignalRules;
import io.tcpsight.internal.diagnose.host.SendingConnection;
import io.tcpsight.internal.export.OtlpSettings;
import io.tcpsight.internal.export.TcpsightJmx;
import io.tcpsight.internal.host.HostSignalWatch;
import io.tcpsight.internal.host.HostTcpFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.LogText;
import io.tcpsight.internal.model.Role;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import io.tcpsight.internal.monitor.JudgedConnection;
import io.tcpsight.internal.monitor.SamplingLoop;
import io.tcpsight.internal.sampling.CensusTracker;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.LiveHostSources;
import io.tcpsight.internal.tcp.ProcessSocket;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One observation of a process's Kafka connections, assembled the same way for every component:
 * the bounded registry, the findings board (logging through the component's sinks), the
 * monitor, the sampling loop, the JMX bean and any other exporter, and their close.
 *
 * <p>The broker agent, the Connect plugin and the client reporter plug in only what differs:
 * how connections are found (hooks or a census) and named, which Kafka settings apply to them,
 * and extra finding sources. Nothing runs until {@link #start()}; an exporter that cannot start
 * costs one log line and the rest runs.
 */
public final class ObservationRuntime implements AutoCloseable {
    /** An output started with the runtime and closed with it: JMX, an HTTP endpoint, a meter registry. */
    public interface Exporter {
        AutoCloseable start(ConnectionMonitor monitor) throws Exception;
    }

    /** Work done on the sampling thread before each round, such as a census refresh. */
    public interface RoundStep {
        void run() throws IOException;
    }

    private final String component;
    private final Consumer<String> warn;
    private final ConnectionMonitor monitor;
    private final List<RoundStep> beforeRound;
    private final List<NamedExporter> exporters;
    private final String samplerThread;
    private final List<AutoCloseable> started = new ArrayList<>();
    private SamplingLoop loop;

    private ObservationRuntime(Builder builder) {
        this.component = builder.component;
        this.warn = builder.warn;
        TcpsightConfig config = builder.config;
        ConnectionRegistry registry = new ConnectionRegistry(
                config.get(TcpsightConfig.MAX_TRACKED_CONNECTIONS).intValue());
        FindingsBoard board = new FindingsBoard(
                config.get(TcpsightConfig.FINDING_LOG_INTERVAL_MS),
                finding -> finding.logTo(builder.info, builder.warn));
        // The host's counters are read once a round, before the rules: a connection's retransmissions
        // are judged local or the path's from the same interval's drops.
        HostSignalWatch host = new HostSignalWatch(new LiveHostSources(), builder.warn);
        this.monitor = new ConnectionMonitor(
                registry,
                config,
                builder.settings,
                () -> {
                    KernelFacts kernel = HostTcpFacts.current().kernelFacts();
                    return host.next().map(kernel::withHostSignals).orElse(kernel);
                },
                board);
        monitor.observeHost(host);
        // the connections that sent in the round: one carried unread sent nothing
        monitor.addReadFindingSource(connections -> host.latest()
                .map(signals -> HostSignalRules.evaluate(
                        signals,
                        sending(connections, config.targetBytesPerSecond()),
                        ConnectionIdentity.of(builder.hostRole.get(), null, null),
                        config.targetBytesPerSecond()))
                .orElse(List.of()));
        monitor.addRoundFindingSource(connections -> TrackingRules.untrackedConnections(
                registry.untracked(), registry.size(), registry.capacity(), builder.hostRole.get()));
        builder.namers.forEach(monitor::addNamer);
        builder.findingSources.forEach(monitor::addFindingSource);
        // a component's source judges its connections by their identities
        builder.roundFindingSources.forEach(
                source -> monitor.addRoundFindingSource(judged -> source.apply(JudgedConnection.connections(judged))));
        builder.readFindingSources.forEach(
                source -> monitor.addReadFindingSource(judged -> source.apply(JudgedConnection.connections(judged))));
        this.beforeRound = new ArrayList<>();
        builder.beforeRound.forEach(step -> beforeRound.add(step.apply(registry)));
        this.exporters = new ArrayList<>(builder.exporters);
        if (config.get(TcpsightConfig.OTLP_ENABLED)) {
            // Micrometer looked up by name, and OtlpPush (which names its types) not touched without it
            List<String> missing = missingForOtlp(ObservationRuntime.class.getClassLoader());
            if (missing.isEmpty()) {
                exporters.add(new NamedExporter("the OTLP push", observed -> {
                    OtlpSettings otlp = OtlpSettings.resolve(config, System::getenv, builder.serviceName);
                    AutoCloseable push = OtlpPush.start(observed, otlp);
                    builder.info.accept(builder.component + ": pushing meters over OTLP to " + otlp.url() + " every "
                            + otlp.step().toMillis() + " ms");
                    return push;
                }));
            } else {
                builder.warn.accept(builder.component + ": " + TcpsightConfig.OTLP_ENABLED.name()
                        + "=true needs Micrometer beside tcpsight, and this class path lacks "
                        + String.join(" and ", missing)
                        + "; add them (docs/configuration.md) or set it to false. No OTLP push; the rest runs.");
            }
        }
        this.samplerThread = builder.samplerThread;
    }

    /** One class of each library the OTLP push needs, and the artifact that brings it. */
    private static final String[][] OTLP_NEEDS = {
        {"io.micrometer.core.instrument.binder.MeterBinder", "io.micrometer:micrometer-core"},
        {"io.micrometer.registry.otlp.OtlpMeterRegistry", "io.micrometer:micrometer-registry-otlp"},
    };

    /**
     * The artifacts the OTLP push needs that this class loader cannot load, or that are broken there
     * (a class file that does not define); empty when the push can start.
     */
    private static List<String> missingForOtlp(ClassLoader loader) {
        List<String> missing = new ArrayList<>();
        for (String[] needed : OTLP_NEEDS) {
            try {
                Class.forName(needed[0], false, loader);
            } catch (ClassNotFoundException | LinkageError absent) {
                missing.add(needed[1] + " (" + absent + ")");
            }
        }
        return missing;
    }

    /**
     * The named connections that retransmitted, were busy, or received a flow of substance in their last interval,
     * for the host findings.
     */
    private static List<SendingConnection> sending(List<JudgedConnection> judged, double targetBytesPerSecond) {
        double leastReceived = HostSignalRules.flowOfSubstance(targetBytesPerSecond);
        List<SendingConnection> sending = new ArrayList<>();
        for (JudgedConnection connection : judged) {
            ConnectionIdentity identity = connection.connection().identity();
            if (!identity.ownerKnownBy().known() || !connection.sample().movedInInterval()) {
                continue; // an idle connection sent and received nothing
            }
            connection
                    .sample()
                    .interval()
                    .flatMap(interval -> SendingConnection.of(identity, interval, leastReceived))
                    .ifPresent(sending::add);
        }
        return sending;
    }

    /**
     * Starts observing for {@code component}, the name its log lines begin with ("tcpsight agent").
     */
    public static Builder builder(String component, TcpsightConfig config) {
        return new Builder(component, config);
    }

    public ConnectionMonitor monitor() {
        return monitor;
    }

    public ConnectionRegistry registry() {
        return monitor.registry();
    }

    /** Starts the exporters, then the sampling loop. */
    public ObservationRuntime start() {
        for (NamedExporter exporter : exporters) {
            try {
                started.add(exporter.exporter.start(monitor));
            } catch (Exception | LinkageError unavailable) {
                warn.accept(component + ": " + exporter.what + " not started, the rest runs: " + unavailable);
            }
        }
        loop = new SamplingLoop(samplerThread, monitor.config(), this::round, warn).start();
        return this;
    }

    /** One round now, on the caller's thread: what the loop does each interval. */
    public void round() {
        long started = System.nanoTime();
        for (RoundStep step : beforeRound) {
            try {
                step.run();
            } catch (IOException unreadable) {
                throw new IllegalStateException(unreadable.getMessage(), unreadable);
            }
        }
        if (!beforeRound.isEmpty()) {
            monitor.preparedIn(System.nanoTime() - started);
        }
        monitor.round();
    }

    @Override
    public void close() {
        if (loop != null) {
            loop.close();
        }
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception | LinkageError failed) {
                warn.accept(component + ": closing an exporter failed: " + failed);
            }
        }
        started.clear();
    }

    private static final class NamedExporter {
        final String what;
        final Exporter exporter;

        NamedExporter(String what, Exporter exporter) {
            this.what = what;
            this.exporter = exporter;
        }
    }

    /** What a component plugs in; everything has a default but the component's name and config. */
    public static final class Builder {
        private final String component;
        private final TcpsightConfig config;
        private Consumer<String> info = message -> {};
        private Consumer<String> warn = message -> {};
        private Function<TrackedConnection, KafkaSettings> settings = connection -> KafkaSettings.unknown();
        private final List<Function<ConnectionRegistry, RoundStep>> beforeRound = new ArrayList<>();
        private final List<Consumer<List<TrackedConnection>>> namers = new ArrayList<>();
        private final List<Supplier<List<Finding>>> findingSources = new ArrayList<>();
        private final List<Function<List<TrackedConnection>, List<Finding>>> roundFindingSources = new ArrayList<>();
        private final List<Function<List<TrackedConnection>, List<Finding>>> readFindingSources = new ArrayList<>();
        private final List<NamedExporter> exporters = new ArrayList<>();
        private String samplerThread;
        private Supplier<Role> hostRole = () -> Role.CLIENT;
        private String serviceName;

        private Builder(String component, TcpsightConfig config) {
            this.component = Objects.requireNonNull(component, "component");
            this.config = Objects.requireNonNull(config, "config");
            this.samplerThread = "tcpsight-sampler";
            this.serviceName = component.replace(' ', '-');
        }

        /** Where findings and failures are logged. */
        /** Every line reaches the sinks as one line: what came from clients cannot forge lines of its own. */
        public Builder log(Consumer<String> info, Consumer<String> warn) {
            this.info = message -> info.accept(LogText.oneLine(message));
            this.warn = message -> warn.accept(LogText.oneLine(message));
            return this;
        }

        /**
         * The role this JVM's host findings carry when no Kafka connection was hurt: a broker's where
         * it serves Kafka listeners, a client's (the default) where it only connects.
         */
        public Builder hostRole(Supplier<Role> role) {
            this.hostRole = role;
            return this;
        }

        /** The client settings a connection's owner runs with; unknown by default. */
        public Builder settings(Function<TrackedConnection, KafkaSettings> settings) {
            this.settings = settings;
            return this;
        }

        /**
         * Before each round, tracks this process's sockets that {@code belongs} accepts, as the process
         * census finds them (for components that no hook tells of opens and closes).
         */
        public Builder census(Predicate<ProcessSocket> belongs, Function<ProcessSocket, ConnectionIdentity> identify) {
            beforeRound.add(registry -> {
                CensusTracker census = new CensusTracker(registry, belongs, identify);
                return () -> {
                    try {
                        census.refresh();
                    } catch (IOException unreadable) {
                        throw new IOException("process census failed: " + unreadable.getMessage(), unreadable);
                    }
                };
            });
            return this;
        }

        /** Work on the sampling thread before each round, in the order the steps (and the census) were added. */
        public Builder beforeRound(RoundStep step) {
            beforeRound.add(registry -> step);
            return this;
        }

        /** Names connections from what a round just sampled, before the rules run (see {@link ConnectionMonitor#addNamer}). */
        public Builder namer(Consumer<List<TrackedConnection>> namer) {
            namers.add(namer);
            return this;
        }

        /** Findings from elsewhere (listeners, host counters), evaluated each round. */
        public Builder findingSource(Supplier<List<Finding>> source) {
            findingSources.add(source);
            return this;
        }

        /** Findings from a round's connections as a whole (see {@link ConnectionMonitor#addRoundFindingSource}). */
        public Builder roundFindingSource(Function<List<TrackedConnection>, List<Finding>> source) {
            roundFindingSources.add(source);
            return this;
        }

        /** Findings from the connections a round read (see {@link ConnectionMonitor#addReadFindingSource}). */
        public Builder readFindingSource(Function<List<TrackedConnection>, List<Finding>> source) {
            readFindingSources.add(source);
            return this;
        }

        /** The JMX bean {@code io.tcpsight:type=<type>,name=<name>}. */
        public Builder jmx(String type, String name) {
            return exporter("JMX bean " + type, monitor -> TcpsightJmx.register(monitor, type, name));
        }

        public Builder exporter(String what, Exporter exporter) {
            exporters.add(new NamedExporter(what, exporter));
            return this;
        }

        /** service.name of the OTLP push unless OTEL_SERVICE_NAME or the keys say otherwise. */
        public Builder serviceName(String name) {
            this.serviceName = Objects.requireNonNull(name, "name");
            return this;
        }

        public Builder samplerThread(String name) {
            this.samplerThread = name;
            return this;
        }

        /** Assembles everything; nothing runs until {@link ObservationRuntime#start()}. */
        public ObservationRuntime build() {
            return new ObservationRuntime(this);
        }
    }
}
