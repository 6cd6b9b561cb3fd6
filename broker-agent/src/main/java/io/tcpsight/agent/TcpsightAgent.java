package io.tcpsight.agent;

import java.lang.instrument.Instrumentation;

/**
 * {@code -javaagent:tcpsight-broker-agent-<version>.jar=port=9464,host=127.0.0.1,interval=10s}. Tiny on
 * purpose: it puts the hook classes on the bootstrap class path before anything can load them from
 * the agent jar, then hands over to {@link AgentStartup}. Nothing here names a hook type, so the
 * verifier loads none of them early.
 */
public final class TcpsightAgent {
    private TcpsightAgent() {}

    public static void premain(String arguments, Instrumentation instrumentation) {
        start(arguments, instrumentation);
    }

    public static void agentmain(String arguments, Instrumentation instrumentation) {
        start(arguments, instrumentation);
    }

    /**
     * AgentStartup turns every failure into one line; this catches what it cannot, a class of the
     * agent that does not link, which a premain would otherwise throw and so stop the JVM.
     */
    private static void start(String arguments, Instrumentation instrumentation) {
        try {
            AgentStartup.start(arguments, instrumentation, BootstrapHooks.install(instrumentation));
        } catch (Throwable failure) {
            System.err.println("tcpsight agent disabled, the JVM continues without it: " + failure);
        }
    }
}
