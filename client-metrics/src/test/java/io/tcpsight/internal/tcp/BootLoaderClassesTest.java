package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.testing.NativeLibrary;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The broker agent's way into the bootstrap loader, with the real JNI library (skipped without it,
 * failed in CI). The probe is a test class in the hooks' package; Truncated.class, a test resource
 * there, is two bytes of a class file.
 */
class BootLoaderClassesTest {
    private static final String PROBE = "io.tcpsight.agent.internal.hooks.BootProbe";

    @Test
    void aHookClassIsDefinedInTheBootstrapLoaderOnceAndWorksThere() throws Exception {
        NativeLibrary.assumeLoaded();
        assertThrows(ClassNotFoundException.class, () -> Class.forName(PROBE, false, null), "not there before");

        assertEquals(Optional.empty(), BootLoaderClasses.define(PROBE));

        Class<?> defined = Class.forName(PROBE, true, null);
        assertNull(defined.getClassLoader());
        assertEquals("null", defined.getMethod("loader").invoke(null), "its code runs in the bootstrap loader");
        // a second start of the agent in the same JVM finds it there
        assertEquals(Optional.empty(), BootLoaderClasses.define(PROBE));
        assertTrue(defined == Class.forName(PROBE, false, null), "the same class, not a second one");
    }

    @Test
    void aClassFileTheJvmRefusesIsNamedWithTheJvmsReason() {
        NativeLibrary.assumeLoaded();
        String truncated = "io.tcpsight.agent.internal.hooks.Truncated";

        Optional<String> refused = BootLoaderClasses.define(truncated);

        assertTrue(refused.isPresent());
        assertTrue(
                refused.get().startsWith("the JVM refused " + truncated + ": java.lang.ClassFormatError"),
                refused.get());
        assertThrows(ClassNotFoundException.class, () -> Class.forName(truncated, false, null));
    }

    @Test
    void aHookClassWithoutAClassFileIsNamed() {
        NativeLibrary.assumeLoaded();
        String absent = BootLoaderClasses.HOOKS_PACKAGE + "Absent";
        assertEquals(
                Optional.of("no class file for " + absent + " beside tcpsight's classes"),
                BootLoaderClasses.define(absent));
    }

    @Test
    void onlyClassesOfTheHooksPackageAreDefined() {
        for (String other : new String[] {
            "io.tcpsight.internal.tcp.TcpInfo", // tcpsight's own, but not a hook
            "io.tcpsight.agent.internal.hooksExtra.Probe", // the package's name as a prefix
            "io.tcpsight.agent.internal.hooks.sub.Probe", // a package below it
            "io.tcpsight.agent.internal.hooks.", // no class
            "java.lang.Probe"
        }) {
            assertEquals(
                    Optional.of("only the agent's hook classes (io.tcpsight.agent.internal.hooks.*) are defined in the"
                            + " bootstrap loader, not " + other),
                    BootLoaderClasses.define(other),
                    other);
        }
        assertThrows(
                ClassNotFoundException.class, () -> Class.forName("io.tcpsight.internal.tcp.TcpInfo", false, null));
    }
}
