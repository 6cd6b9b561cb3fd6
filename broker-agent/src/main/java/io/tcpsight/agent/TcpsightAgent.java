package io.tcpsight.agent;

import java.lang.instrument.Instrumentation;

/**
 * {@code -javaagent:tcpsight-broker-agent-<version>.jar=port=9464,host=127.0.0.1,interval=10s}. Tiny on
 * purpose: it puts the hook classes on the bootstrap class path before anything can load them from
 * the agent jar, then hands over to {@link AgentStartup}. Nothing here names a hook type, so the
 * verifier loads none of them early. As the jar's main class it loads the jar into a running JVM
 * ({@link AgentAttach}).
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
     * {@code java -jar tcpsight-broker-agent-<version>.jar attach PID [key=value,...]}; exits 0 when
     * the agent started in that JVM, 2 for a usage error, 3 when it did not start.
     */
    public static void main(String[] args) {
        System.exit(AgentAttach.run(args, AgentAttach.jarOf(TcpsightAgent.class), System.out, System.err));
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
