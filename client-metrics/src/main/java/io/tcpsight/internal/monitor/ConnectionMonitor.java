package io.tcpsight.internal.monitor;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.Diagnosis;
import io.tcpsight.internal.diagnose.connection.WindowModel;
import io.tcpsight.internal.diagnose.coverage.UnplacedSockets;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.diagnose.finding.FindingsBoard;
import io.tcpsight.internal.host.HostSignalWatch;
import io.tcpsight.internal.model.ConnectionFacts;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.sampling.ConnectionRegistry;
import io.tcpsight.internal.sampling.ConnectionSample;
import io.tcpsight.internal.sampling.ConnectionSampler;
import io.tcpsight.internal.sampling.TrackedConnection;
import io.tcpsight.internal.tcp.TcpState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One round of observation: sample every tracked connection, turn each into facts, run the
 * rules, publish the findings and tell the exporters. Components (reporter, agent, plugin)
 * decide what is tracked and which Kafka settings apply; this does the rest.
 */
public final class ConnectionMonitor {
    /** Told after every round; exporters implement it. */
    public interface RoundListener {
        void onRound(Round round);
    }

    private final ConnectionRegistry registry;
    private final ConnectionSampler sampler;
    private final TcpsightConfig config;
    private final Function<TrackedConnection, KafkaSettings> settings;
    private final Supplier<KernelFacts> kernel;
    private volatile HostSignalWatch hostSignals;
    private final FindingsBoard board;
    private final List<Supplier<List<Finding>>> extraFindings = new CopyOnWriteArrayList<>();
    private final List<Function<List<JudgedConnection>, List<Finding>>> roundFindings = new CopyOnWriteArrayList<>();
    private final List<Function<List<JudgedConnection>, List<Finding>>> readFindings = new CopyOnWriteArrayList<>();
    private final List<RoundListener> listeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<List<TrackedConnection>>> namers = new CopyOnWriteArrayList<>();
    /**
     * What every output reads: the latest round, kept as each connection's sample and ceiling with the
     * findings published (32 bytes a connection and its list slot beside what the connection holds anyway).
     */
    private volatile Round lastRound = Round.NONE;

    /** The host's TCP facts the previous round judged by (the sampling thread's). */
    private KernelFacts judgedUnder;

    private volatile long lastRoundNanos = -1;
    private volatile long lastPreparationNanos = -1;

    public ConnectionMonitor(
            ConnectionRegistry registry,
            TcpsightConfig config,
            Function<TrackedConnection, KafkaSettings> settings,
            Supplier<KernelFacts> kernel,
            FindingsBoard board) {
        this.registry = registry;
        this.sampler = new ConnectionSampler(registry);
        this.config = config;
        this.settings = settings;
        this.kernel = kernel;
        this.board = board;
    }

    public void addListener(RoundListener listener) {
        listeners.add(listener);
    }

    /** Stops telling this listener of rounds (an application's binder, closed). */
    public void removeListener(RoundListener listener) {
        listeners.remove(listener);
    }

    /** The host's counters this monitor's rounds read (the runtime sets it once, before the first round). */
    public void observeHost(HostSignalWatch watch) {
        this.hostSignals = watch;
    }

    /** The host's counters, when the runtime reads them. */
    public Optional<HostSignalWatch> hostSignals() {
        return Optional.ofNullable(hostSignals);
    }

    /**
     * Told after sampling and before the rules: for components that name connections from what
     * was just sampled (the Connect plugin matches byte counts), so this round's findings carry
     * the names. A namer may release a connection it finds is not this component's; the round then
     * leaves it out.
     */
    public void addNamer(Consumer<List<TrackedConnection>> namer) {
        namers.add(namer);
    }

    /** Findings that come from elsewhere (listeners, host counters), evaluated each round. */
    public void addFindingSource(Supplier<List<Finding>> source) {
        extraFindings.add(source);
    }

    /**
     * Findings from the round's judged connections as a whole, not from any one socket: a client's
     * configured buffer against the RTT measured on its broker paths holds whoever owns each socket;
     * the host's counters against the connections that sent in the round.
     */
    public void addRoundFindingSource(Function<List<JudgedConnection>, List<Finding>> source) {
        roundFindings.add(source);
    }

    /**
     * Findings from the connections a round read, as a whole: for a source that has nothing to learn from a
     * connection carried unread (idle: it sent and received nothing since it was last read), so that a round
     * on a big broker does not visit its idle connections for it.
     */
    public void addReadFindingSource(Function<List<JudgedConnection>, List<Finding>> source) {
        readFindings.add(source);
    }

    public ConnectionRegistry registry() {
        return registry;
    }

    public FindingsBoard board() {
        return board;
    }

    public TcpsightConfig config() {
        return config;
    }

    /**
     * The latest round: its connections as it sampled and judged them and the findings it published.
     * Every output that shows a connection reads this, so none shows a sample the findings were not
     * judged on; empty before the first round.
     */
    public Round lastRound() {
        return lastRound;
    }

    /** The {@code limit} worst connections of the latest round, by {@link ConnectionRanking}. */
    public List<JudgedConnection> worstConnections(int limit) {
        return ConnectionRanking.worst(lastRound, limit);
    }

    /**
     * How long the latest round took from sampling to its published findings (what the round
     * costs the host JVM; listeners that export it are not counted); empty before the first.
     */
    public OptionalLong lastRoundNanos() {
        long nanos = lastRoundNanos;
        return nanos < 0 ? OptionalLong.empty() : OptionalLong.of(nanos);
    }

    /**
     * How long the steps before the latest round took (the process census, for a component that
     * finds its sockets by it); empty before the first, or where no step runs.
     */
    public OptionalLong lastPreparationNanos() {
        long nanos = lastPreparationNanos;
        return nanos < 0 ? OptionalLong.empty() : OptionalLong.of(nanos);
    }

    /** The steps before the next round took this long (the runtime that runs them says so). */
    public void preparedIn(long nanos) {
        lastPreparationNanos = nanos;
    }

    /** Samples that failed since the start, by reason: gone (descriptor closed), reused, failed (anything else). */
    public long sampleErrors(String reason) {
        switch (reason) {
            case "gone":
                return sampler.goneDescriptors();
            case "reused":
                return sampler.reusedDescriptors();
            default:
                return sampler.failedSamples();
        }
    }

    public void round() {
        long started = System.nanoTime();
        List<TrackedConnection> sampled = sampler.sample();
        for (Consumer<List<TrackedConnection>> namer : namers) {
            namer.accept(sampled);
        }
        if (!namers.isEmpty()) {
            // a namer releases what it found to be another's
            List<TrackedConnection> kept = new ArrayList<>(sampled.size());
            for (TrackedConnection connection : sampled) {
                if (registry.get(connection.fd()).orElse(null) == connection) {
                    kept.add(connection);
                }
            }
            sampled = kept;
        }
        KernelFacts kernelFacts = kernel.get();
        // a carried connection's judgement stands only while the host's TCP settings it was judged by do
        boolean hostSettingsKept = judgedUnder != null && kernelFacts.sameSettingsAs(judgedUnder);
        List<Finding> findings = new ArrayList<>();
        List<JudgedConnection> judged = new ArrayList<>(sampled.size());
        List<JudgedConnection> read = new ArrayList<>();
        List<ConnectionFacts> judgedFacts = new ArrayList<>();
        UnplacedSockets unplaced = new UnplacedSockets();
        for (TrackedConnection connection : sampled) {
            JudgedConnection standing =
                    connection.carried() && hostSettingsKept ? JudgedConnection.standingFor(connection) : null;
            List<Finding> own;
            ConnectionIdentity judgedAs;
            if (standing != null) {
                // idle and unread this round, as at its last judgement: that judgement stands
                judged.add(standing);
                own = standing.own();
                judgedAs = standing.identity();
            } else {
                ConnectionSample sample = sampler.sampleOf(connection);
                ConnectionFacts facts = facts(connection, sample, kernelFacts);
                own = Diagnosis.connection(facts, config);
                JudgedConnection now = new JudgedConnection(
                        connection, sample, WindowModel.windowCeiling(facts), own, facts.identity());
                connection.judgement(now);
                judged.add(now);
                judgedFacts.add(facts);
                if (!connection.carried()) {
                    read.add(now);
                }
                judgedAs = facts.identity();
            }
            if (!own.isEmpty()) { // most connections have none: their identity is not even looked at
                unplaced.add(judgedAs, own);
                if (judgedAs.ownerKnownBy().known()) {
                    findings.addAll(own); // a socket of unknown owner never carries a finding, nor a client's key
                }
            }
        }
        // every connection of the round is judged under these now (a round that failed before here leaves the
        // previous, so the next judges every carried connection again)
        judgedUnder = kernelFacts;
        findings.addAll(unplaced.summaries(JudgedConnection.identities(judged)));
        // A source that fails loses its own findings only; the round publishes the rest and then
        // reports the first failure, which the loop logs once.
        List<JudgedConnection> judgedView = Collections.unmodifiableList(judged);
        List<JudgedConnection> readView = Collections.unmodifiableList(read);
        Throwable failed = findingsOf(roundFindings, judgedView, findings, null);
        failed = findingsOf(readFindings, readView, findings, failed);
        for (Supplier<List<Finding>> source : extraFindings) {
            try {
                findings.addAll(source.get());
            } catch (RuntimeException | LinkageError failure) {
                failed = failed == null ? failure : failed;
            }
        }
        Round round = new Round(judgedView, Collections.unmodifiableList(findings), judgedFacts, readView);
        // kept before the findings are published: whoever reads the findings and then the connections finds
        // each finding's connection there, never the round before it
        lastRound = round.kept();
        board.publish(findings, System.currentTimeMillis());
        lastRoundNanos = System.nanoTime() - started;
        for (RoundListener listener : listeners) {
            listener.onRound(round);
        }
        if (failed instanceof RuntimeException) {
            throw (RuntimeException) failed;
        }
        if (failed != null) {
            throw (LinkageError) failed;
        }
    }

    /** Adds what each source finds in {@code given}; returns the first failure (the one before, if any). */
    private static Throwable findingsOf(
            List<Function<List<JudgedConnection>, List<Finding>>> sources,
            List<JudgedConnection> given,
            List<Finding> into,
            Throwable failedBefore) {
        Throwable failed = failedBefore;
        for (Function<List<JudgedConnection>, List<Finding>> source : sources) {
            try {
                into.addAll(source.apply(given));
            } catch (RuntimeException | LinkageError failure) {
                failed = failed == null ? failure : failed;
            }
        }
        return failed;
    }

    private ConnectionFacts facts(TrackedConnection connection, ConnectionSample sample, KernelFacts kernelFacts) {
        ConnectionFacts.Builder facts = ConnectionFacts.builder(connection.identity())
                .established(sample.state() == TcpState.ESTABLISHED)
                .rttMicros(sample.pathRttMicros())
                .sndMssBytes(sample.sndMssBytes())
                .windowScaling(sample.options().windowScaling())
                .rcvWindowScale(sample.rcvWindowScale())
                .peerWindowScale(sample.sndWindowScale())
                .interval(sample.interval().orElse(null))
                .handshakeMillis(connection.handshakeMillis())
                .kafka(settings.apply(connection))
                .kernel(kernelFacts);
        long now = System.nanoTime();
        connection.pushed().filter(pushed -> pushed.freshAt(now)).ifPresent(facts::pushed);
        sample.sndWindowBytes().ifPresent(facts::sndWindowBytes);
        connection.widestEarlierSndWindowBytes().ifPresent(facts::widestSndWindowBytes);
        facts.samplesNarrowerThanTheFlow(connection.samplesNarrowerThanTheFlow());
        sample.buffers().ifPresent(buffers -> facts.receiveBufferBytes(buffers.receiveBufferBytes())
                .windowClampBytes(buffers.windowClampBytes())
                .congestionControl(buffers.congestionControl()));
        return facts.build();
    }
}
