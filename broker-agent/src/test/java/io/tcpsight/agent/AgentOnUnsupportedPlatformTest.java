package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * On a platform its jar has no library for (a JVM told it runs on riscv64), the agent starts as
 * usual and says so in exactly one line: where it runs (the OS, the architecture, the C library),
 * why, what to do, and what it goes without; its rounds add nothing to it.
 */
class AgentOnUnsupportedPlatformTest {

    /** Run in the child JVM: the agent's real start, with an Instrumentation that has no classes. */
    public static void main(String[] args) throws Exception {
        Instrumentation none = (Instrumentation) Proxy.newProxyInstance(
                Instrumentation.class.getClassLoader(),
                new Class<?>[] {Instrumentation.class},
                (proxy, method, arguments) -> {
                    Class<?> type = method.getReturnType();
                    if (type == Class[].class) {
                        return new Class<?>[0];
                    }
                    if (type == boolean.class) {
                        return false;
                    }
                    return type == long.class ? 0L : null;
                });
        AgentStartup.start(args[0], none, null);
        // the endpoint starts on the agent's own thread: on a busy host that took more than 2 s once (a build
        // beside the lab), so the rounds are counted from its start, not from the call
        long startBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.getProperty(AgentStartup.STATE_PROPERTY) == null && System.nanoTime() < startBy) {
            Thread.sleep(50);
        }
        Thread.sleep(2_000); // about 20 rounds at interval=100ms
        System.out.println("state=" + System.getProperty(AgentStartup.STATE_PROPERTY));
    }

    @Test
    void oneLineSaysWhereItRunsWhyWhatToDoAndWhatGoesOn() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        // without SLF4J the agent logs through java.util.logging, to this child's standard error
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains("slf4j"))
                .collect(Collectors.joining(File.pathSeparator));
        Process child = new ProcessBuilder(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Dos.arch=riscv64",
                        "-cp",
                        classPath,
                        AgentOnUnsupportedPlatformTest.class.getName(),
                        "port=" + port + ",interval=100ms"))
                .redirectErrorStream(true)
                .start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("state=started http://"), output);

        List<String> lines = output.lines()
                .filter(line -> line.contains("TCP_INFO") || line.contains("native"))
                .collect(Collectors.toList());
        assertEquals(1, lines.size(), output);
        String line = lines.get(0);
        assertTrue(line.contains("tcpsight agent: no TCP_INFO on Linux riscv64, "), line);
        assertTrue(line.contains(", glibc: ") || line.contains(", musl libc: "), "names the C library: " + line);
        assertTrue(line.contains("this jar has no native library for linux-riscv64"), line);
        assertTrue(
                line.contains("built for linux-x86_64 and linux-aarch64 (glibc or musl) only"), "what to do: " + line);
        assertTrue(
                line.contains("without it connections, listen queues and the host's qdisc and driver drops are not"
                        + " read; connect pacing, the endpoint and the host's listen overflow counters go on"),
                line);
    }
}
