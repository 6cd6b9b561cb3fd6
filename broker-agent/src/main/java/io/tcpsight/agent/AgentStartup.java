package io.tcpsight.agent;

import io.tcpsight.agent.internal.hooks.Hooks;
import io.tcpsight.agent.internal.hooks.KafkaHookTransformer;
import io.tcpsight.internal.config.InvalidSettingException;
import io.tcpsight.internal.config.TcpsightConfig;
import java.lang.instrument.Instrumentation;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * Everything {@link TcpsightAgent} starts once the hook classes are where every loader sees them.
 * A bad argument or any failure at start is one log line, and the agent disables itself: the JVM
 * always starts.
 */
final class AgentStartup {
    /**
     * A system property the agent sets once it has started ("started " and its endpoint, or "started
     * without an endpoint") or was disabled ("disabled: " and why), so that {@code tcpsight attach}
     * can tell what a load did, through the Attach API's view of the JVM's properties.
     */
    static final String STATE_PROPERTY = "tcpsight.agent.state";

    private static volatile AgentAssembly runtime;

    private AgentStartup() {}

    static synchronized void start(String arguments, Instrumentation instrumentation, String hooksPlacement) {
        AgentLog log = AgentLog.create();
        if (hooksPlacement != null) {
            log.warn("tcpsight agent: " + hooksPlacement);
        }
        if (runtime != null) {
            log.warn("tcpsight agent: already running in this JVM; ignoring the second start");
            return;
        }
        clearState(); // a load after a disabled one: its own outcome, not the last
        try {
            AgentSettings settings = AgentSettings.parse(arguments);
            AgentAssembly started = new AgentAssembly(settings, log);
            Hooks.install(started.hooks());
            // Before main runs, so that every connection is seen from the JVM's first. Installing on a
            // background thread was tried and not kept: on 2 cores it saved no broker startup time (the
            // install is CPU, not waiting) and would miss a client JVM's first connections.
            instrument(instrumentation, log);
            runtime = started;
            // The rest (sampler, JMX, HTTP) starts off the JVM's startup path, on a daemon thread: threads it
            // creates (the HTTP dispatcher) inherit daemon status, so the agent never keeps a JVM from exiting.
            // On an attach, the connections Kafka already holds are adopted from the process census first.
            Thread starter = new Thread(
                    () -> {
                        try {
                            int adopted = started.adoptOpenConnections();
                            started.start(log);
                            log.info(startedLine(settings, started, adopted));
                            state(
                                    started.httpEndpoint() != null
                                            ? "started " + started.httpEndpoint()
                                            : "started without an endpoint");
                        } catch (Throwable failure) {
                            Hooks.install(null);
                            log.warn("tcpsight agent disabled, the JVM continues without it: " + failure);
                            state("disabled: " + failure);
                        }
                    },
                    "tcpsight-agent-start");
            starter.setDaemon(true);
            starter.start();
        } catch (InvalidSettingException invalid) {
            Hooks.install(null);
            log.warn("tcpsight agent disabled, the JVM continues without it: " + invalid.getMessage());
            state("disabled: " + invalid.getMessage());
        } catch (Throwable failure) {
            Hooks.install(null);
            log.warn("tcpsight agent disabled, the JVM continues without it: " + failure);
            state("disabled: " + failure);
        }
    }

    /** The one line that says the agent started, and what it runs. */
    private static String startedLine(AgentSettings settings, AgentAssembly started, int adopted) {
        return "tcpsight agent started: sampling every "
                + settings.config.get(TcpsightConfig.SAMPLE_INTERVAL_MS)
                + " ms"
                + (started.httpEndpoint() != null
                        ? ", " + started.httpEndpoint()
                        : settings.port > 0 ? ", no HTTP endpoint (it did not start: see above)" : ", no HTTP endpoint")
                + (settings.congestion != null
                        ? ", congestion control " + settings.congestion + " on accepted sockets"
                        : "")
                + (started.connectPacing() != null ? ", " + started.connectPacing() : "")
                + (settings.listenBacklog > 0
                        ? ", listen backlog " + settings.listenBacklog + " for Kafka's listeners"
                        : "")
                + (adopted > 0 ? ", " + adopted + " open connections adopted from the census" : "")
                + "; " + started.brokerSockets().describe();
    }

    private static void clearState() {
        try {
            System.clearProperty(STATE_PROPERTY);
        } catch (RuntimeException refused) {
            // as below
        }
    }

    private static void state(String state) {
        try {
            System.setProperty(STATE_PROPERTY, state);
        } catch (RuntimeException refused) {
            // a security manager that refuses: attach then cannot tell, and says so
        }
    }

    /**
     * Registers the transformer before any Kafka class loads (premain), and on an attach
     * retransforms the Kafka classes already loaded. A plain transformer over ASM rather than
     * ByteBuddy's AgentBuilder: the hooks are six call sites, and AgentBuilder loaded about 1,000
     * classes at start (docs/benchmarks.md).
     */
    private static void instrument(Instrumentation instrumentation, AgentLog log) {
        Set<String> reported = ConcurrentHashMap.newKeySet();
        BiConsumer<String, Throwable> report = (type, failure) -> {
            if (reported.add(type)) {
                log.warn("tcpsight agent: could not instrument " + type + ", connections seen through it are missed: "
                        + failure);
            }
        };
        KafkaHookTransformer transformer = new KafkaHookTransformer(report);
        instrumentation.addTransformer(transformer, true);
        for (Class<?> type : instrumentation.getAllLoadedClasses()) {
            if (KafkaHookTransformer.CLASS_NAMES.contains(type.getName()) && instrumentation.isModifiableClass(type)) {
                try {
                    instrumentation.retransformClasses(type);
                } catch (Throwable failure) {
                    report.accept(type.getName(), failure);
                }
            }
        }
    }
}
