package io.tcpsight.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The bootstrap jar holds every class the compiler made from Hooks, and nothing more (IsolatingClassLoaderIT runs it). */
class BootstrapHooksTest {

    @Test
    void theBootstrapJarHoldsEveryCompiledHookClass() throws IOException {
        Set<String> compiled;
        try (Stream<Path> files = Files.list(Paths.get("target/classes/io/tcpsight/agent/internal/hooks"))) {
            compiled = files.map(file -> "io/tcpsight/agent/internal/hooks/" + file.getFileName())
                    .filter(name -> name.startsWith("io/tcpsight/agent/internal/hooks/Hooks.")
                            || name.startsWith("io/tcpsight/agent/internal/hooks/Hooks$"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        Set<String> packed = new TreeSet<>();
        try (JarInputStream jar = new JarInputStream(new ByteArrayInputStream(BootstrapHooks.jar()))) {
            for (JarEntry entry = jar.getNextJarEntry(); entry != null; entry = jar.getNextJarEntry()) {
                packed.add(entry.getName());
            }
        }
        assertEquals(compiled, packed);
        assertEquals(compiled, new TreeSet<>(BootstrapHooks.CLASSES));
    }
}
