package io.tcpsight.internal.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * Defines the broker agent's hook classes in the bootstrap class loader through the JNI library.
 * Appending a jar to the bootstrap class path would do the same, but it turns class-data sharing of
 * the application's classes off, and the JVM then prints a warning at start on every Java since 12
 * (its default CDS archive is on). Only classes of the hooks' package, each from the class file this
 * class's own loader finds (the agent jar): the bootstrap loader does not verify what it defines, so
 * this takes no bytes from its caller.
 */
public final class BootLoaderClasses {
    /** The broker agent's hooks: the one package whose classes are defined here. */
    public static final String HOOKS_PACKAGE = "io.tcpsight.agent.internal.hooks.";

    private BootLoaderClasses() {}

    /** Whether the JNI library is loaded, so that {@link #define} can work at all. */
    public static boolean libraryLoaded() {
        return NativeTcp.availability().isAvailable();
    }

    /**
     * Defines {@code binaryName} (a.b.C), a class of {@link #HOOKS_PACKAGE}, in the bootstrap loader
     * from its class file, unless it is there already. Empty when the class is in that loader after
     * the call, else why not: another package, the library is unavailable, no class file, or the JVM
     * refused it.
     */
    public static Optional<String> define(String binaryName) {
        String simpleName = binaryName.startsWith(HOOKS_PACKAGE) ? binaryName.substring(HOOKS_PACKAGE.length()) : "";
        if (simpleName.isEmpty() || simpleName.contains(".")) {
            return Optional.of("only the agent's hook classes (" + HOOKS_PACKAGE
                    + "*) are defined in the bootstrap loader, not " + binaryName);
        }
        NativeAvailability availability = NativeTcp.availability();
        if (!availability.isAvailable()) {
            return Optional.of("the native library is not loaded: " + availability.reason());
        }
        if (inBootLoader(binaryName)) {
            return Optional.empty(); // an earlier start of the agent in this JVM defined it
        }
        String internalName = binaryName.replace('.', '/');
        byte[] classFile;
        try (InputStream in = BootLoaderClasses.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            if (in == null) {
                return Optional.of("no class file for " + binaryName + " beside tcpsight's classes");
            }
            classFile = in.readAllBytes();
        } catch (IOException unreadable) {
            return Optional.of("the class file of " + binaryName + " could not be read: " + unreadable);
        }
        try {
            Class<?> defined = NativeTcp.defineBootClass(internalName, classFile);
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
