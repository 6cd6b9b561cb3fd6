package io.tcpsight.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.TestAbortedException;

class CiRunTest {
    /** Every module's test sources, from this module's folder (Maven runs tests there). */
    private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

    @Test
    void onlyCiRunReadsTheCiVariable() throws IOException {
        List<Path> readers;
        try (Stream<Path> files = Files.walk(REPOSITORY)) {
            readers = files.filter(file -> file.toString().endsWith(".java"))
                    .filter(file -> !file.toString().contains("/target/"))
                    .filter(file -> !file.getFileName().toString().equals("CiRun.java"))
                    .filter(CiRunTest::readsCi)
                    .collect(Collectors.toList());
        }
        assertTrue(Files.isDirectory(REPOSITORY.resolve("integration-tests/src/test/java")), REPOSITORY.toString());
        assertEquals(List.of(), readers);
    }

    private static boolean readsCi(Path file) {
        try {
            return Files.readString(file).contains("getenv(\"CI\")");
        } catch (IOException unreadable) {
            throw new IllegalStateException(unreadable);
        }
    }

    @Test
    void anAbortIsAFailureOnlyInCi() {
        TestAbortedException aborted = new TestAbortedException("no native library here");
        Throwable handled = NoSkipsInCi.inCi(displayedAs("readsASocket()"), aborted);
        if (CiRun.inCi()) {
            assertTrue(handled instanceof AssertionError, String.valueOf(handled));
            assertTrue(handled.getMessage().contains("readsASocket() could not run here"), handled.getMessage());
            assertTrue(handled.getMessage().contains("no native library here"), handled.getMessage());
        } else {
            assertEquals(aborted, handled);
        }
        IllegalStateException other = new IllegalStateException("a real failure");
        assertEquals(other, NoSkipsInCi.inCi(displayedAs("readsASocket()"), other));
    }

    private static ExtensionContext displayedAs(String name) {
        return (ExtensionContext) Proxy.newProxyInstance(
                CiRunTest.class.getClassLoader(), new Class<?>[] {ExtensionContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getDisplayName")) {
                        return name;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
