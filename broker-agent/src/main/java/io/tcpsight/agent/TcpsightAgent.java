package io.tcpsight.agent;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.tcpsight.agent.hooks.DoCloseAdvice;
import io.tcpsight.agent.hooks.FinishConnectAdvice;
import io.tcpsight.agent.hooks.Hooks;
import io.tcpsight.agent.hooks.NetworkClientAdvice;
import io.tcpsight.agent.hooks.RegisterChannelAdvice;
import io.tcpsight.agent.hooks.RequestContextAdvice;
import io.tcpsight.agent.hooks.SelectorConnectAdvice;
import io.tcpsight.config.InvalidSettingException;
import java.lang.instrument.Instrumentation;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.utility.JavaModule;

/**
 * {@code -javaagent:tcpsight-broker-agent.jar=port=9464,host=127.0.0.1,interval=10s}. A bad
 * argument or any failure at start is one log line, and the agent disables itself: the JVM
 * always starts.
 */
public final class TcpsightAgent {
    private static volatile AgentRuntime runtime;

    private TcpsightAgent() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) {
        start(arguments, instrumentation);
    }

    public static void agentmain(String arguments, Instrumentation instrumentation) {
        start(arguments, instrumentation);
    }

    private static synchronized void start(String arguments, Instrumentation instrumentation) {
        AgentLog log = AgentLog.create();
        if (runtime != null) {
            log.warn("tcpsight agent: already running in this JVM; ignoring the second start");
            return;
        }
        try {
            AgentSettings settings = AgentSettings.parse(arguments);
            AgentRuntime started = new AgentRuntime(settings, log);
            Hooks.install(started);
            // Before main runs, so that every connection is seen from the JVM's first. Installing on a
            // background thread was tried and not kept: on 2 cores it saved no broker startup time (the
            // install is CPU, not waiting) and would miss a client JVM's first connections.
            instrument(instrumentation, log);
            runtime = started;
            // The rest (sampler, JMX, HTTP) starts off the JVM's startup path, on a daemon thread: threads it
            // creates (the HTTP dispatcher) inherit daemon status, so the agent never keeps a JVM from exiting.
            // On an attach, the connections Kafka already holds are adopted from the process census first.
            Thread starter = new Thread(() -> {
                try {
                    int adopted = started.adoptOpenConnections();
                    started.start();
                    log.info("tcpsight agent started: sampling every " + settings.config.get(io.tcpsight.config.TcpsightConfig.SAMPLE_INTERVAL_MS)
                            + " ms" + (settings.port > 0 ? ", http://" + settings.host + ":" + settings.port + "/metrics" : ", no HTTP endpoint")
                            + (settings.congestion != null ? ", congestion control " + settings.congestion + " on accepted sockets" : "")
                            + (adopted > 0 ? ", " + adopted + " open connections adopted from the census" : ""));
                } catch (Throwable failure) {
                    Hooks.install(null);
                    log.warn("tcpsight agent disabled, the JVM continues without it: " + failure);
                }
            }, "tcpsight-agent-start");
            starter.setDaemon(true);
            starter.start();
        } catch (InvalidSettingException invalid) {
            Hooks.install(null);
            log.warn("tcpsight agent disabled, the JVM continues without it: " + invalid.getMessage());
        } catch (Throwable failure) {
            Hooks.install(null);
            log.warn("tcpsight agent disabled, the JVM continues without it: " + failure);
        }
    }

    /**
     * The advice is built here, once, before any Kafka class loads: building it inside a
     * transformation would reflect on advice classes while Kafka's class is being defined.
     */
    private static void instrument(Instrumentation instrumentation, AgentLog log) {
        Advice connect = Advice.to(SelectorConnectAdvice.class);
        Advice registerChannel = Advice.to(RegisterChannelAdvice.class);
        Advice doClose = Advice.to(DoCloseAdvice.class);
        Advice finishConnect = Advice.to(FinishConnectAdvice.class);
        Advice networkClient = Advice.to(NetworkClientAdvice.class);
        Advice requestContext = Advice.to(RequestContextAdvice.class);
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                // Decided by name alone: no other class is ever parsed or described.
                .ignore(not(nameStartsWith("org.apache.kafka.")))
                .with(new AgentBuilder.Listener.Adapter() {
                    @Override
                    public void onError(String typeName, ClassLoader classLoader, JavaModule module, boolean loaded, Throwable throwable) {
                        log.warn("tcpsight agent: could not instrument " + typeName + ", connections seen through it are missed: " + throwable);
                    }
                })
                .type(named("org.apache.kafka.common.network.Selector"))
                .transform((DynamicType.Builder<?> builder, TypeDescription type, ClassLoader loader, JavaModule module,
                        java.security.ProtectionDomain domain) -> builder
                        .visit(connect.on(named("connect").and(takesArguments(4))))
                        .visit(registerChannel.on(named("registerChannel").and(takesArguments(3))))
                        .visit(doClose.on(named("doClose").and(takesArguments(2)))))
                .type(named("org.apache.kafka.common.network.KafkaChannel"))
                .transform((builder, type, loader, module, domain) -> builder
                        .visit(finishConnect.on(named("finishConnect").and(takesArguments(0)))))
                .type(named("org.apache.kafka.clients.NetworkClient"))
                .transform((builder, type, loader, module, domain) -> builder.visit(networkClient.on(isConstructor())))
                .type(named("org.apache.kafka.common.requests.RequestContext"))
                // The shorter constructors delegate to the 10-argument one (3.9 and 4.x): one call per request.
                .transform((builder, type, loader, module, domain) -> builder.visit(requestContext.on(isConstructor().and(takesArguments(10)))))
                .installOn(instrumentation);
    }
}
