package io.tcpsight.internal.tcp;

import java.util.Optional;

/**
 * Defines tcpsight's own classes in the bootstrap class loader through the JNI library, for the
 * broker agent's hooks. Appending a jar to the bootstrap class path would do the same, but it turns
 * class-data sharing of the application's classes off, and the JVM then prints a warning at start
 * on every Java since 12 (its default CDS archive is on).
 */
public final class BootLoaderClasses {
    private static final String OWN_PACKAGES = "io.tcpsight.";

    private BootLoaderClasses() {}

    /**
     * Defines {@code binaryName} (a.b.C) from its class file in the bootstrap class loader, unless it
     * is there already. Empty when the class is in that loader after the call, else why not: the
     * library is unavailable, the name is not tcpsight's, or the JVM refused the class file.
     */
    public static Optional<String> define(String binaryName, byte[] classFile) {
        if (!binaryName.startsWith(OWN_PACKAGES)) {
            return Optional.of("only tcpsight's classes (" + OWN_PACKAGES
                    + "*) are defined in the bootstrap loader, not " + binaryName);
        }
        NativeAvailability availability = NativeTcp.availability();
        if (!availability.isAvailable()) {
            return Optional.of("the native library is not loaded: " + availability.reason());
        }
        if (inBootLoader(binaryName)) {
            return Optional.empty(); // an earlier start of the agent in this JVM defined it
        }
        try {
            Class<?> defined = NativeTcp.defineBootClass(binaryName.replace('.', '/'), classFile);
            return defined.getClassLoader() == null
                    ? Optional.empty()
                    : Optional.of(binaryName + " was defined in " + defined.getClassLoader());
        } catch (LinkageError | RuntimeException refused) {
            return Optional.of("the JVM refused " + binaryName + ": " + refused);
        }
    }

    private static boolean inBootLoader(String binaryName) {
        try {
            Class.forName(binaryName, false, null);
            return true;
        } catch (ClassNotFoundException absent) {
            return false;
        }
    }
}
