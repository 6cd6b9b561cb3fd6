package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * On a system other than Linux (macOS, as far as this machine can pretend: a JVM told its os.name
 * is Mac OS X) or an architecture the jar has no library for (a JVM told its os.arch is riscv64),
 * the native library is not loaded and says why and what to do, and a call that needs it fails
 * with that reason instead of crashing the JVM.
 */
class OtherPlatformTest {
    /** Run in the child JVM: the availability, then a call that needs the library. */
    public static void main(String[] args) {
        NativeAvailability availability = TcpSockets.availability();
        System.out.println("available=" + availability.isAvailable() + " reason=" + availability.reason());
        System.out.println("line=" + availability.unavailableLine("tcpsight", "nothing is read"));
        try {
            TcpSockets.tcpInfo(0);
            System.out.println("tcpInfo answered");
        } catch (NativeUnavailableException expected) {
            System.out.println("tcpInfo refused: " + expected.getMessage());
        }
    }

    @Test
    void onMacOsTheLibraryIsUnavailableWithItsReasonAndCallsFailCleanly() throws Exception {
        String output = child("-Dos.name=Mac OS X");
        String reason = "TCP_INFO is read through a Linux-only JNI library; this JVM runs on Mac OS X: run tcpsight"
                + " on Linux (x86_64 or aarch64) to read it";
        assertTrue(output.contains("available=false reason=" + reason), output);
        assertTrue(output.contains("tcpsight: no TCP_INFO on Mac OS X "), output);
        assertTrue(output.contains("tcpInfo refused: ") && output.contains(reason), output);
    }

    /** A Linux the jar has no library for: the line names it, its C library, and where TCP_INFO is read. */
    @Test
    void onAnArchitectureTheJarHasNoLibraryForTheLineNamesItAndTheOnesItHas() throws Exception {
        String output = child("-Dos.arch=riscv64");
        assertTrue(
                output.contains("available=false reason=this jar has no native library for linux-riscv64 (looked for"
                        + " /META-INF/native/linux-riscv64/libtcpsight.so): tcpsight's library is built for"
                        + " linux-x86_64 and linux-aarch64 (glibc or musl) only; TCP_INFO is read on those"),
                output);
        assertTrue(
                output.contains("line=tcpsight: no TCP_INFO on Linux riscv64, "
                        + RuntimePlatform.libc(Path.of("/proc/self/maps"))
                        + ": this jar has no native library for linux-riscv64"),
                output);
        assertTrue(output.contains("; without it nothing is read"), output);
        assertTrue(output.contains("tcpInfo refused: "), output);
    }

    private static String child(String property) throws Exception {
        Process child = new ProcessBuilder(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        property,
                        "-cp",
                        System.getProperty("java.class.path"),
                        OtherPlatformTest.class.getName()))
                .redirectErrorStream(true)
                .start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        return output;
    }
}
