package io.tcpsight.internal.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.model.KernelVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostTcpFactsTest {

    @Test
    void liveValuesAgreeWithTheSysctlCommand() throws Exception {
        HostTcpFacts host = HostTcpFacts.current();
        assertTrue(host.problems().isEmpty(), host.problems().toString());
        assertEquals(
                sysctl("net.core.somaxconn"), Long.toString(host.somaxconn().getAsLong()));
        assertEquals(sysctl("net.core.rmem_max"), Long.toString(host.rmemMax().getAsLong()));
        assertEquals(sysctl("net.core.wmem_max"), Long.toString(host.wmemMax().getAsLong()));
        assertEquals(
                sysctl("net.ipv4.tcp_rmem").replaceAll("\\s+", " "),
                host.tcpRmem().get().toString());
        assertEquals(
                sysctl("net.ipv4.tcp_wmem").replaceAll("\\s+", " "),
                host.tcpWmem().get().toString());
        assertEquals(
                sysctl("net.ipv4.tcp_syncookies"),
                Long.toString(host.syncookies().getAsLong()));
        assertEquals(
                sysctl("net.ipv4.tcp_timestamps"),
                Long.toString(host.timestamps().getAsLong()));
        assertEquals(
                sysctl("net.ipv4.tcp_window_scaling"),
                Long.toString(host.windowScaling().getAsLong()));
        assertEquals(
                sysctl("net.ipv4.tcp_congestion_control"),
                host.congestionControl().get());
        assertEquals(
                Arrays.asList(
                        sysctl("net.ipv4.tcp_available_congestion_control").split("\\s+")),
                host.availableCongestionControl());
        assertEquals(
                Arrays.asList(sysctl("kernel.osrelease").split("-")[0].split("\\."))
                        .subList(0, 2),
                Arrays.asList(
                        Integer.toString(host.kernel().get().major()),
                        Integer.toString(host.kernel().get().minor())));
    }

    @Test
    void malformedAndMissingValuesAreAbsentAndNamedInProblems(@TempDir Path proc) throws Exception {
        write(proc, "sys/kernel/osrelease", "6.6.30-generic\n");
        write(proc, "sys/net/core/somaxconn", "lots\n");
        write(proc, "sys/net/core/rmem_max", "\n");
        write(proc, "sys/net/ipv4/tcp_rmem", "4096 131072\n");
        write(proc, "sys/net/ipv4/tcp_wmem", "4096\t16384\t4194304\n");
        write(proc, "sys/net/ipv4/tcp_syncookies", "2\n");
        HostTcpFacts host = HostTcpFacts.read(proc);

        assertEquals(KernelVersion.of(6, 6, 30), host.kernel().get());
        assertFalse(host.somaxconn().isPresent());
        assertFalse(host.rmemMax().isPresent());
        assertFalse(host.tcpRmem().isPresent());
        assertEquals(4194304, host.tcpWmem().get().maxBytes());
        assertEquals(2, host.syncookies().getAsLong());
        assertTrue(host.availableCongestionControl().isEmpty());
        String problems = String.join("\n", host.problems());
        assertTrue(problems.contains("net.core.somaxconn: 'lots' is not a whole number"), problems);
        assertTrue(
                problems.contains("net.core.rmem_max: " + proc.resolve("sys/net/core/rmem_max") + " is empty"),
                problems);
        assertTrue(
                problems.contains("net.ipv4.tcp_rmem: '4096 131072' is not three whole numbers (min default max)"),
                problems);
        assertTrue(
                problems.contains("net.ipv4.tcp_timestamps: " + proc.resolve("sys/net/ipv4/tcp_timestamps")
                        + " does not exist on this kernel or in this namespace"),
                problems);
    }

    private static void write(Path root, String relative, String content) throws Exception {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.write(file, content.getBytes(StandardCharsets.US_ASCII));
    }

    private static String sysctl(String name) throws Exception {
        Process process = new ProcessBuilder("sysctl", "-n", name)
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertEquals(0, process.waitFor(), output);
        return output;
    }
}
