package io.tcpsight.agent;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.util.Optional;

/**
 * The JDK's Attach API (the jdk.attach module), and the only class of the agent that names it: a
 * runtime without the module (a JRE made with jlink) fails to link this class alone, so
 * {@link AgentAttach} asks for the module before it loads this one. Each failure comes out as an
 * {@link IOException} with the JDK's own message, which {@link AgentAttach} explains.
 */
final class AttachApi implements AutoCloseable {
    private final VirtualMachine vm;

    private AttachApi(VirtualMachine vm) {
        this.vm = vm;
    }

    /** Attaches to the JVM of this process id. */
    static AttachApi attach(long pid) throws IOException {
        try {
            return new AttachApi(VirtualMachine.attach(Long.toString(pid)));
        } catch (AttachNotSupportedException refused) {
            throw new IOException(refused.getMessage(), refused);
        }
    }

    /** A system property of the attached JVM. */
    Optional<String> property(String name) throws IOException {
        return Optional.ofNullable(vm.getSystemProperties().getProperty(name));
    }

    /** Loads the agent jar into the attached JVM, which runs its agentmain with these arguments. */
    void loadAgent(String jar, String arguments) throws IOException {
        try {
            vm.loadAgent(jar, arguments);
        } catch (AgentLoadException | AgentInitializationException refused) {
            throw new IOException(refused.getMessage(), refused);
        }
    }

    @Override
    public void close() {
        try {
            vm.detach();
        } catch (IOException gone) {
            // the JVM exited meanwhile: nothing to detach from
        }
    }
}
