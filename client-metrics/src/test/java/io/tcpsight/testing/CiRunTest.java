package io.tcpsight.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.TestExecutionListener;
import org.opentest4j.TestAbortedException;

class CiRunTest {
    /** Every module's test sources, from this module's folder (Maven runs tests there). */
    private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

    @Test
    void onlyCiRunReadsTheCiVariable() throws IOException {
        List<Path> sources;
        try (Stream<Path> files = Files.walk(REPOSITORY)) {
            sources = files.filter(file -> file.toString().endsWith(".java"))
                    // relative to the repository: a checkout under a folder named target is still scanned
                    .filter(file -> !REPOSITORY.relativize(file).toString().contains("/target/"))
                    .collect(Collectors.toList());
        }
        List<Path> readers = sources.stream()
                .filter(file -> !file.getFileName().toString().equals("CiRun.java"))
                .filter(CiRunTest::readsCi)
                .collect(Collectors.toList());
        assertTrue(sources.size() > 100, sources.size() + " sources under " + REPOSITORY);
        assertTrue(
                sources.contains(
                        REPOSITORY.resolve("integration-tests/src/test/java/io/tcpsight/lab/LabPrerequisites.java")),
                "the lab's sources are scanned");
        assertEquals(List.of(), readers);
    }

    /** Any string literal of the variable's name: a getenv call, getenv().get, @EnabledIfEnvironmentVariable. */
    private static boolean readsCi(Path file) {
        try {
            return Files.readString(file).contains("\"CI\"");
        } catch (IOException unreadable) {
            throw new IllegalStateException(unreadable);
        }
    }

    /** Both hooks are registered where JUnit looks for them; without them CI would go green on skips again. */
    @Test
    void bothHooksAreRegistered() {
        List<String> listeners = new ArrayList<>();
        ServiceLoader.load(TestExecutionListener.class)
                .forEach(listener -> listeners.add(listener.getClass().getName()));
        assertTrue(listeners.contains(SkipsFailCiRun.class.getName()), listeners.toString());
        List<String> extensions = new ArrayList<>();
        ServiceLoader.load(Extension.class)
                .forEach(extension -> extensions.add(extension.getClass().getName()));
        assertTrue(extensions.contains(NoSkipsInCi.class.getName()), extensions.toString());
    }

    /** What this run's JUnit configuration says of extension auto-detection, read before each test. */
    private static volatile String autoDetection = "not read";

    @RegisterExtension
    static final BeforeEachCallback READ_CONFIGURATION = context ->
            autoDetection = context.getConfigurationParameter("junit.jupiter.extensions.autodetection.enabled")
                    .orElse("unset");

    /** And auto-detection is on in this very run (the parent pom's surefire and failsafe properties). */
    @Test
    void autoDetectionIsOn() {
        assertEquals("true", autoDetection);
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
