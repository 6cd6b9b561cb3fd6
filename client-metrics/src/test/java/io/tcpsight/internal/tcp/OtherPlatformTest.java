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
 * is Mac OS X), the native library is not loaded and says why, and a call that needs it fails
 * with that reason instead of crashing the JVM.
 */
class OtherPlatformTest {
    /** Run in the child JVM: the availability, then a call that needs the library. */
    public static void main(String[] args) {
        NativeAvailability availability = TcpSockets.availability();
        System.out.println("available=" + availability.isAvailable() + " reason=" + availability.reason());
        try {
            TcpSockets.tcpInfo(0);
            System.out.println("tcpInfo answered");
        } catch (NativeUnavailableException expected) {
            System.out.println("tcpInfo refused: " + expected.getMessage());
        }
    }

    @Test
    void onMacOsTheLibraryIsUnavailableWithItsReasonAndCallsFailCleanly() throws Exception {
        Process child = new ProcessBuilder(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Dos.name=Mac OS X",
                        "-cp",
                        System.getProperty("java.class.path"),
                        OtherPlatformTest.class.getName()))
                .redirectErrorStream(true)
                .start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        String reason = "TCP_INFO is read through a Linux-only JNI library; this JVM runs on Mac OS X";
        assertTrue(output.contains("available=false reason=" + reason), output);
        assertTrue(output.contains("tcpInfo refused: ") && output.contains(reason), output);
    }
}
