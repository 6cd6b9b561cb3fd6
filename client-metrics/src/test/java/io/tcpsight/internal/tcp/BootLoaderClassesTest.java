package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The broker agent's way into the bootstrap loader, with the real JNI library (skipped without it, failed in CI). */
class BootLoaderClassesTest {
    private static final String PROBE = "io.tcpsight.internal.tcp.BootProbe";

    @Test
    void aClassFileIsDefinedInTheBootstrapLoaderOnceAndWorksThere() throws Exception {
        assumeLoaded();
        assertThrows(ClassNotFoundException.class, () -> Class.forName(PROBE, false, null), "not there before");

        assertEquals(
                Optional.empty(),
                BootLoaderClasses.define(PROBE, classFile("io/tcpsight/internal/tcp/BootProbe.class")));

        Class<?> defined = Class.forName(PROBE, true, null);
        assertNull(defined.getClassLoader());
        assertEquals("null", defined.getMethod("loader").invoke(null), "its code runs in the bootstrap loader");
        // the agent started twice in one JVM finds its hooks there already
        assertEquals(Optional.empty(), BootLoaderClasses.define(PROBE, new byte[] {1, 2, 3}));
    }

    @Test
    void aClassFileTheJvmRefusesIsNamedWithTheJvmsReason() {
        assumeLoaded();
        Optional<String> refused =
                BootLoaderClasses.define("io.tcpsight.internal.tcp.Truncated", new byte[] {(byte) 0xCA, (byte) 0xFE});

        assertTrue(refused.isPresent());
        assertTrue(
                refused.get()
                        .startsWith("the JVM refused io.tcpsight.internal.tcp.Truncated: java.lang.ClassFormatError"),
                refused.get());
        assertThrows(
                ClassNotFoundException.class, () -> Class.forName("io.tcpsight.internal.tcp.Truncated", false, null));
    }

    @Test
    void onlyTcpsightsOwnClassesAreDefined() throws Exception {
        Optional<String> refused =
                BootLoaderClasses.define("com.example.Probe", classFile("io/tcpsight/internal/tcp/BootProbe.class"));

        assertEquals(
                Optional.of(
                        "only tcpsight's classes (io.tcpsight.*) are defined in the bootstrap loader, not com.example.Probe"),
                refused);
        assertThrows(ClassNotFoundException.class, () -> Class.forName("com.example.Probe", false, null));
    }

    private static void assumeLoaded() {
        assumeTrue(
                NativeTcp.availability().isAvailable(),
                "no native library here: " + NativeTcp.availability().reason());
    }

    private static byte[] classFile(String resource) throws IOException {
        try (InputStream in = BootLoaderClassesTest.class.getClassLoader().getResourceAsStream(resource)) {
            return in.readAllBytes();
        }
    }
}
