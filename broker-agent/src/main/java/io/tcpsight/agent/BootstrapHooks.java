package io.tcpsight.agent;

import io.tcpsight.internal.tcp.PrivateExtraction;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * Puts the hook classes on the bootstrap class path, as mature agents do: a Kafka class rewritten
 * in any loader (an application server's, an OSGi bundle's, a tool's isolating URLClassLoader)
 * links to them, because every loader reaches the bootstrap loader. They are copied out of the
 * agent jar into a small private jar, loaded at once, and the file is removed: the JVM keeps it
 * open, so nothing is left on disk.
 */
final class BootstrapHooks {
    /** The hook classes and nothing else: they name only JDK types. BootstrapHooksTest keeps this list complete. */
    static final List<String> CLASSES = List.of(
            "io/tcpsight/agent/internal/hooks/Hooks.class",
            "io/tcpsight/agent/internal/hooks/Hooks$Receiver.class",
            "io/tcpsight/agent/internal/hooks/Hooks$1.class");

    private BootstrapHooks() {}

    /**
     * Returns null when the hooks are on the bootstrap class path, else what went wrong: then they
     * stay in the agent jar and Kafka classes in loaders that cannot see it run unhooked.
     */
    static String install(Instrumentation instrumentation) {
        Path jar = null;
        try {
            jar = PrivateExtraction.write(PrivateExtraction.directory(), "tcpsight-hooks-", ".jar", jar());
            try (JarFile bootstrapJar = new JarFile(jar.toFile())) {
                // The JVM opens the jar by its name for itself; this handle only names it.
                instrumentation.appendToBootstrapClassLoaderSearch(bootstrapJar);
            }
            for (String resource : CLASSES) {
                String name = resource.substring(0, resource.length() - ".class".length())
                        .replace('/', '.');
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

    /** A jar of the hook classes, read from this agent's own jar as resources (nothing is loaded). */
    static byte[] jar() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(bytes)) {
            for (String resource : CLASSES) {
                try (InputStream in = BootstrapHooks.class.getClassLoader().getResourceAsStream(resource)) {
                    if (in == null) {
                        throw new IOException("the agent jar lacks " + resource);
                    }
                    jar.putNextEntry(new JarEntry(resource));
                    in.transferTo(jar);
                    jar.closeEntry();
                }
            }
        }
        return bytes.toByteArray();
    }
}
