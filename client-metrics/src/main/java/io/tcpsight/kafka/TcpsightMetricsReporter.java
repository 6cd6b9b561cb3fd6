package io.tcpsight.kafka;

import io.tcpsight.internal.kafka.ClientReporter;
import io.tcpsight.internal.model.LogText;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * tcpsight for a plain producer, consumer or admin client:
 * {@code metric.reporters=io.tcpsight.kafka.TcpsightMetricsReporter}, with this library's jar beside
 * kafka-clients and nothing else. It finds the client's connections to its brokers, samples the
 * kernel's view of them and logs findings, also served by JMX as
 * {@code io.tcpsight:type=ClientMetrics,name=<client.id>} (see {@link ClientReporter}).
 *
 * <p>It never fails its client: whatever any step throws (a bad {@code tcpsight.*} setting, a
 * library on the class path that does not link, a bug), the reporter logs one line with what to do,
 * turns itself off, and the client constructs and runs as if it were absent. That is why this
 * class is only a guard: it names no type beyond Kafka's, SLF4J's and the JDK's in a way the JVM's
 * verifier must load, so a class that cannot link fails inside the guard, not in Kafka's constructor.
 */
public class TcpsightMetricsReporter implements MetricsReporter {
    private static final Logger LOG = LoggerFactory.getLogger(TcpsightMetricsReporter.class);
    /** tcpsight's bad-setting exception, known by its name, so that telling it apart links nothing of tcpsight's. */
    private static final String BAD_SETTING = "InvalidSettingException";

    private final Consumer<String> info;
    private final Consumer<String> warn;
    private String clientId = "unknown";
    /**
     * The reporter at work; empty before configure() and once it turned itself off. Kafka calls
     * metricChange and metricRemoval from its own threads, so one of them turns it off, once.
     */
    private final AtomicReference<ClientReporter> reporter = new AtomicReference<>();

    public TcpsightMetricsReporter() {
        this(LOG::info, LOG::warn);
    }

    /** With other log sinks; tests read what would be logged. */
    TcpsightMetricsReporter(Consumer<String> info, Consumer<String> warn) {
        this.info = info;
        this.warn = warn;
    }

    @Override
    public void configure(Map<String, ?> configs) {
        try {
            Object id = configs.get("client.id");
            clientId = id == null || String.valueOf(id).isEmpty() ? "unknown" : String.valueOf(id);
            ClientReporter configured = new ClientReporter(info, warn);
            reporter.set(configured);
            configured.configure(configs);
        } catch (Throwable failure) {
            // said even when the reporter could not be made at all (a class of tcpsight's that does not link)
            reporter.set(null);
            say("configure", failure, null);
        }
    }

    // Each step is written out rather than passed as a lambda to one helper: a lambda over ClientReporter links
    // that class at its first call, outside any try, so a class that does not link would escape into Kafka
    // (ReporterClassPathTest.aReporterThatCannotBeMadeIsOneLineAtConfigure fails with such a helper).
    @Override
    public void init(List<KafkaMetric> metrics) {
        ClientReporter running = reporter.get();
        if (running == null) {
            return;
        }
        try {
            running.init(metrics);
        } catch (Throwable failure) {
            off("init", failure);
        }
    }

    @Override
    public void metricChange(KafkaMetric metric) {
        ClientReporter running = reporter.get();
        if (running == null) {
            return;
        }
        try {
            running.metricChange(metric);
        } catch (Throwable failure) {
            off("metricChange", failure);
        }
    }

    @Override
    public void metricRemoval(KafkaMetric metric) {
        ClientReporter running = reporter.get();
        if (running == null) {
            return;
        }
        try {
            running.metricRemoval(metric);
        } catch (Throwable failure) {
            off("metricRemoval", failure);
        }
    }

    @Override
    public void close() {
        ClientReporter running = reporter.getAndSet(null);
        if (running == null) {
            return;
        }
        try {
            running.close();
        } catch (Throwable failure) {
            say("close", failure, "nothing to do; the client closes as usual");
        }
    }

    /**
     * The monitor behind this reporter, once init() ran; empty before, when tcpsight is unavailable,
     * or once the reporter turned itself off.
     */
    Optional<ConnectionMonitor> monitor() {
        ClientReporter running = reporter.get();
        return running == null ? Optional.empty() : running.monitor();
    }

    /** One line for the failure, then off for good: what it started is stopped, and no later call reaches it. */
    private void off(String step, Throwable failure) {
        ClientReporter failed = reporter.getAndSet(null);
        if (failed == null) {
            return; // another thread turned it off first, and said so
        }
        say(step, failure, null);
        try {
            failed.close();
        } catch (Throwable alsoFailed) {
            // already off and said so; the close was only to stop what had started
        }
    }

    /** The line, built and logged so that nothing escapes, even where tcpsight's own classes do not link. */
    private void say(String step, Throwable failure, String advice) {
        String prefix = "tcpsight reporter for client.id=" + clientId + " is off, the client runs without it";
        try {
            // a bad setting's message names the key, the value (masked if secret) and what is allowed
            boolean badSetting = failure.getClass().getSimpleName().equals(BAD_SETTING);
            String what = badSetting ? failure.getMessage() : failure.toString();
            warn.accept(LogText.oneLine(prefix + " (" + step + " failed: " + what + "); "
                    + (advice != null ? advice : advice(failure, badSetting))));
        } catch (Throwable unsayable) {
            try {
                warn.accept(
                        prefix + " (" + step + " failed: " + failure.getClass().getName() + ")");
            } catch (Throwable silent) {
                // the client's own logging failed: nothing is left to tell, and the client runs on
            }
        }
    }

    private static String advice(Throwable failure, boolean badSetting) {
        if (badSetting) {
            return "correct the setting in the client's config (docs/configuration.md lists every tcpsight key)";
        }
        if (failure instanceof LinkageError) {
            return "a class on the client's class path does not link with tcpsight's jar: put"
                    + " tcpsight-client-metrics beside kafka-clients alone (docs/configuration.md), or remove "
                    + TcpsightMetricsReporter.class.getName() + " from metric.reporters";
        }
        return "remove " + TcpsightMetricsReporter.class.getName()
                + " from metric.reporters until this is fixed, and report this line";
    }
}
