package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/**
 * Loads the real tcpsight classes in a fresh class loader whose jar lacks the native library,
 * as on an unsupported platform or a broken package.
 */
class NativeUnavailableTest {

    /** Hides META-INF/native and loads io.tcpsight classes itself rather than from its parent. */
    static final class WithoutNativeLibrary extends URLClassLoader {
        WithoutNativeLibrary() throws Exception {
            super(
                    new URL[] {Paths.get("target/classes").toUri().toURL()},
                    NativeUnavailableTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("io.tcpsight.")) {
                synchronized (getClassLoadingLock(name)) {
                    Class<?> loaded = findLoadedClass(name);
                    return loaded != null ? loaded : findClass(name);
                }
            }
            return super.loadClass(name, resolve);
        }

        @Override
        public URL getResource(String name) {
            return name.contains("META-INF/native") ? null : super.getResource(name);
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            return name.contains("META-INF/native") ? null : super.getResourceAsStream(name);
        }
    }

    @Test
    void missingLibraryIsReportedWithItsReasonAndCallsFailCleanly() throws Exception {
        try (WithoutNativeLibrary loader = new WithoutNativeLibrary()) {
            Class<?> sockets = loader.loadClass("io.tcpsight.internal.tcp.TcpSockets");
            Object availability = sockets.getMethod("availability").invoke(null);
            assertFalse(
                    (Boolean) availability.getClass().getMethod("isAvailable").invoke(availability));
            String reason = (String) availability.getClass().getMethod("reason").invoke(availability);
            assertTrue(reason.contains("no native library for linux-"), reason);

            Method tcpInfo = sockets.getMethod("tcpInfo", int.class);
            InvocationTargetException failure =
                    assertThrows(InvocationTargetException.class, () -> tcpInfo.invoke(null, 0));
            assertEquals(
                    "io.tcpsight.internal.tcp.NativeUnavailableException",
                    failure.getCause().getClass().getName());
            assertTrue(failure.getCause().getMessage().contains(reason));
        }
        assertTrue(TcpSockets.availability().isAvailable(), "this class loader's copy is unaffected");
    }

    @Test
    void twoClassLoadersEachLoadTheirOwnCopy() throws Exception {
        try (URLClassLoader isolated = new URLClassLoader(
                new URL[] {Paths.get("target/classes").toUri().toURL()}, null)) {
            Class<?> sockets = isolated.loadClass("io.tcpsight.internal.tcp.TcpSockets");
            Object availability = sockets.getMethod("availability").invoke(null);
            assertTrue(
                    (Boolean) availability.getClass().getMethod("isAvailable").invoke(availability),
                    "a second class loader (agent beside a Connect plugin) loads its own copy: " + availability);
        }
        assertTrue(TcpSockets.availability().isAvailable());
    }
}
