package io.tcpsight.agent;

import io.tcpsight.internal.tcp.PrivateExtraction;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.security.ProtectionDomain;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * Puts the hook classes in the bootstrap loader, as mature agents do: a Kafka class rewritten in
 * any loader (an application server's, an OSGi bundle's, a tool's isolating URLClassLoader) links
 * to them, because every loader reaches the bootstrap loader.
 *
 * <p>They are defined there directly, from the agent jar's bytes: appending a jar to the bootstrap
 * class path makes a JVM that shares classes from an archive warn ("Sharing is only supported for
 * boot loader classes because bootstrap classpath has been appended"), and Java 25 shares the
 * application's classes by default. Where that cannot be done, they are copied into a small private
 * jar on the bootstrap class path, loaded at once, and the file is removed: the JVM keeps it open,
 * so nothing is left on disk.
 */
final class BootstrapHooks {
    /** The hook classes and nothing else: they name only JDK types. BootstrapHooksTest keeps this list complete. */
    static final List<String> CLASSES = List.of(
            "io/tcpsight/agent/internal/hooks/Hooks.class",
            "io/tcpsight/agent/internal/hooks/Hooks$Receiver.class",
            "io/tcpsight/agent/internal/hooks/Hooks$1.class");

    private BootstrapHooks() {}

    /**
     * Returns null when the hooks are in the bootstrap loader, else what went wrong: then they
     * stay in the agent jar and Kafka classes in loaders that cannot see it run unhooked.
     */
    static String install(Instrumentation instrumentation) {
        if (defineInBootstrapLoader(instrumentation) == null) {
            return null;
        }
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
                    return "hook class " + name + " did not load from the bootstrap loader";
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
     * Defines the hook classes in the bootstrap loader with the JDK's own class definer, its package
     * opened to this agent alone (an agent may open a module's packages); null once each of them is
     * there, else why not. Classes already there (a second attach) are kept.
     */
    static String defineInBootstrapLoader(Instrumentation instrumentation) {
        try {
            Module base = Object.class.getModule();
            instrumentation.redefineModule(
                    base,
                    Set.of(),
                    Map.of(),
                    Map.of("jdk.internal.misc", Set.of(BootstrapHooks.class.getModule())),
                    Set.of(),
                    Map.of());
            Class<?> unsafeType = Class.forName("jdk.internal.misc.Unsafe");
            Object unsafe = unsafeType.getMethod("getUnsafe").invoke(null);
            Method define = unsafeType.getMethod(
                    "defineClass",
                    String.class,
                    byte[].class,
                    int.class,
                    int.class,
                    ClassLoader.class,
                    ProtectionDomain.class);
            // in the list's order: an interface before the class that implements it
            for (String resource : CLASSES) {
                String name = className(resource);
                if (inBootstrapLoader(name)) {
                    continue;
                }
                byte[] bytes = classBytes(resource);
                define.invoke(unsafe, name, bytes, 0, bytes.length, null, null);
            }
            for (String resource : CLASSES) {
                if (!inBootstrapLoader(className(resource))) {
                    return "hook class " + className(resource) + " is not in the bootstrap loader";
                }
            }
            return null;
        } catch (Throwable failure) {
            return failure.toString();
        }
    }

    private static boolean inBootstrapLoader(String name) {
        try {
            return Class.forName(name, false, null).getClassLoader() == null;
        } catch (ClassNotFoundException absent) {
            return false;
        }
    }

    private static String className(String resource) {
        return resource.substring(0, resource.length() - ".class".length()).replace('/', '.');
    }

    private static byte[] classBytes(String resource) throws IOException {
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
