package io.tcpsight.kafka;

import io.tcpsight.internal.config.InvalidSettingException;
import io.tcpsight.internal.kafka.ClientReporter;
import io.tcpsight.internal.model.LogText;
import io.tcpsight.internal.monitor.ConnectionMonitor;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    private final Consumer<String> info;
    private final Consumer<String> warn;
    private String clientId = "unknown";
    /** The reporter at work; null before configure() and once it turned itself off. */
    private ClientReporter reporter;

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
            reporter = configured;
            configured.configure(configs);
        } catch (Throwable failure) {
            off("configure", failure);
        }
    }

    @Override
    public void init(List<KafkaMetric> metrics) {
        ClientReporter running = reporter;
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
        ClientReporter running = reporter;
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
        ClientReporter running = reporter;
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
        ClientReporter running = reporter;
        reporter = null;
        if (running == null) {
            return;
        }
        try {
            running.close();
        } catch (Throwable failure) {
            warn.accept(line("close", failure, "nothing to do; the client closes as usual"));
        }
    }

    /**
     * The monitor behind this reporter, once init() ran; empty before, when tcpsight is unavailable,
     * or once the reporter turned itself off.
     */
    public Optional<ConnectionMonitor> monitor() {
        ClientReporter running = reporter;
        return running == null ? Optional.empty() : running.monitor();
    }

    /** One line for the failure, then off for good: what it started is stopped, and no later call reaches it. */
    private void off(String step, Throwable failure) {
        ClientReporter failed = reporter;
        reporter = null;
        warn.accept(line(step, failure, advice(failure)));
        if (failed != null) {
            try {
                failed.close();
            } catch (Throwable alsoFailed) {
                // already off and said so; the close was only to stop what had started
            }
        }
    }

    private String line(String step, Throwable failure, String advice) {
        // a bad setting's message names the key, the value and what is allowed
        String what = failure instanceof InvalidSettingException ? failure.getMessage() : failure.toString();
        // one line whatever the client.id or the failure hold
        return LogText.oneLine("tcpsight reporter for client.id=" + clientId + " is off, the client runs without it ("
                + step + " failed: " + what + "); " + advice);
    }

    private static String advice(Throwable failure) {
        if (failure instanceof InvalidSettingException) {
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
