package io.tcpsight.agent;

import io.tcpsight.internal.tcp.BootLoaderClasses;
import io.tcpsight.internal.tcp.PrivateExtraction;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * Puts the hook classes in the bootstrap class loader, as mature agents do: a Kafka class rewritten
 * in any loader (an application server's, an OSGi bundle's, a tool's isolating URLClassLoader)
 * links to them, because every loader reaches the bootstrap loader. The JNI library defines them
 * there, each from its class file in the agent jar. Without the library they are copied into a
 * small private jar appended to the bootstrap class path, and the file is removed (the JVM keeps it
 * open); that append turns class-data sharing of application classes off, so that JVM prints one
 * warning of its own.
 */
final class BootstrapHooks {
    /**
     * The hook classes and nothing else: they name only JDK types. BootstrapHooksTest keeps this list
     * complete. In definition order: a class comes after the tcpsight classes it extends or implements.
     */
    static final List<String> CLASSES = List.of(
            "io/tcpsight/agent/internal/hooks/Hooks.class",
            "io/tcpsight/agent/internal/hooks/Hooks$Receiver.class",
            "io/tcpsight/agent/internal/hooks/Hooks$1.class");

    private BootstrapHooks() {}

    /**
     * Returns null when the hooks are in the bootstrap loader (through the JNI library, or appended
     * where the library is not loaded, which the agent says once elsewhere), else what to log: the
     * library was loaded and still did not define them, so they were appended, or they stay in the
     * agent jar and Kafka classes in loaders that cannot see it run unhooked.
     */
    static String install(Instrumentation instrumentation) {
        Optional<String> notDefined = defineInBootLoader();
        if (notDefined.isEmpty()) {
            return null;
        }
        String appendFailure = appendToBootClassPath(instrumentation);
        if (appendFailure != null) {
            return appendFailure;
        }
        return BootLoaderClasses.libraryLoaded()
                ? "hook classes appended to the boot class path, where the JVM shares only boot classes and warns so,"
                        + " because the native library did not define them: " + notDefined.get()
                : null;
    }

    private static String appendToBootClassPath(Instrumentation instrumentation) {
        Path jar = null;
        try {
            jar = PrivateExtraction.write(PrivateExtraction.directory(), "tcpsight-hooks-", ".jar", jar());
            try (JarFile bootstrapJar = new JarFile(jar.toFile())) {
                // The JVM opens the jar by its name for itself; this handle only names it.
                instrumentation.appendToBootstrapClassLoaderSearch(bootstrapJar);
            }
            for (String resource : CLASSES) {
                String name = binaryName(resource);
                if (Class.forName(name, false, null).getClassLoader() != null) {
                    return "hook class " + name + " did not load from the bootstrap class path";
                }
            }
            return null;
        } catch (Throwable failure) {
            return "hooks stay in the agent jar, so Kafka in an isolating class loader is not observed: " + failure;
        } finally {
            if (jar != null) {
                PrivateExtraction.deleteQuietly(jar);
            }
        }
    }

    /**
     * Defines each hook class in the bootstrap loader through the JNI library, in {@link #CLASSES}'
     * order. Empty when all are there, else why the first one is not (the library is unavailable,
     * say): the caller then appends the rest from a jar.
     */
    static Optional<String> defineInBootLoader() {
        for (String resource : CLASSES) {
            Optional<String> problem = BootLoaderClasses.define(binaryName(resource));
            if (problem.isPresent()) {
                return problem;
            }
        }
        return Optional.empty();
    }

    private static String binaryName(String resource) {
        return resource.substring(0, resource.length() - ".class".length()).replace('/', '.');
    }

    private static byte[] classFile(String resource) throws IOException {
        try (InputStream in = BootstrapHooks.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("the agent jar lacks " + resource);
            }
            return in.readAllBytes();
        }
    }

    /** A jar of the hook classes, read from this agent's own jar as resources (nothing is loaded). */
    static byte[] jar() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(bytes)) {
            for (String resource : CLASSES) {
                jar.putNextEntry(new JarEntry(resource));
                jar.write(classFile(resource));
                jar.closeEntry();
            }
        }
        return bytes.toByteArray();
    }
}
