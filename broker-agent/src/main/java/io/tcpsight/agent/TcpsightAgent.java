package io.tcpsight.agent;

import java.lang.instrument.Instrumentation;

/**
 * {@code -javaagent:tcpsight-broker-agent.jar=port=9464,host=127.0.0.1,interval=10s}. Tiny on
 * purpose: it puts the hook classes on the bootstrap class path before anything can load them from
 * the agent jar, then hands over to {@link AgentStartup}. Nothing here names a hook type, so the
 * verifier loads none of them early.
 */
public final class TcpsightAgent {
    private TcpsightAgent() {}

    public static void premain(String arguments, Instrumentation instrumentation) {
        AgentStartup.start(arguments, instrumentation, BootstrapHooks.install(instrumentation));
    }

    public static void agentmain(String arguments, Instrumentation instrumentation) {
        AgentStartup.start(arguments, instrumentation, BootstrapHooks.install(instrumentation));
    }
}
