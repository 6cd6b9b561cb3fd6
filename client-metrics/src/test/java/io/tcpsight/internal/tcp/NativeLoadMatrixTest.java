package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native library meets the directories and files a production host may hand it: real tmpfs
 * mounts that are read-only, full or noexec, a truncated library and one for another
 * architecture. Each gives one reason a person can act on, and nothing is left behind.
 * Mounting needs root: in CI its absence fails, elsewhere it skips.
 */
class NativeLoadMatrixTest {
    private static final String PLATFORM = NativeTcp.platform();
    private static final String RESOURCE = "/META-INF/native/" + PLATFORM + "/libtcpsight.so";

    @TempDir
    Path scratch;

    private Path mounted;

    @AfterEach
    void unmount() throws Exception {
        if (mounted != null) {
            // Lazily: a refused dlopen can leave the JVM holding the deleted file for a while.
            run("umount", "-l", mounted.toString());
        }
    }

    @Test
    void aRefusalOfNativeAccessNamesTheOptionThatAllowsIt() {
        String reason = NativeTcp.refusedAccess(
                new IllegalCallerException("Illegal native access from an unnamed module (file:/opt/agent.jar)"));
        assertEquals(
                "this JVM refuses native access to tcpsight's library (Illegal native access from an unnamed module"
                        + " (file:/opt/agent.jar)): start it with --enable-native-access=ALL-UNNAMED",
                reason);
    }

    @Test
    void beforeJava24TheJvmDoesNotWarnAboutTheLoadSoThereIsNothingToAdvise() {
        assertTrue(NativeTcp.nativeAccessAdvice(17, NativeLoadMatrixTest.class.getModule())
                .isEmpty());
        assertTrue(NativeTcp.nativeAccessAdvice(23, NativeLoadMatrixTest.class.getModule())
                .isEmpty());
        // Java 24's warn mode itself is proven on Temurin 25 (JavaRuntimesLabIT): this JVM has no
        // Module.isNativeAccessEnabled, and a JVM that cannot say gets no advice rather than a guess
        if (Runtime.version().feature() < 22) { // a version branch, not a missing prerequisite: never a skip
            assertTrue(NativeTcp.nativeAccessAdvice(25, NativeLoadMatrixTest.class.getModule())
                    .isEmpty());
        }
    }

    @Test
    void theExtractedFileIsPrivateAndComplete() throws IOException {
        byte[] content = library();
        Path file = PrivateExtraction.write(scratch, "libtcpsight-", ".so", content);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertArrayEquals(content, Files.readAllBytes(file));
    }

    @Test
    void aWritableDirectoryLoadsAndKeepsNothing() throws IOException {
        NativeAvailability loaded = load(scratch, library());
        assertTrue(loaded.isAvailable(), loaded.reason());
        assertEquals(List.of(), listing(scratch));
    }

    /** A directory others may write into (no sticky bit) lets them swap the library before it loads. */
    @Test
    void aDirectoryOthersMayWriteIntoIsRefusedUnlessSticky() throws IOException {
        Path shared = Files.createDirectory(scratch.resolve("shared"));
        Files.setAttribute(shared, "unix:mode", 0777);
        NativeAvailability refused = load(shared, library());
        assertFalse(refused.isAvailable());
        assertReason(refused, "will not load a library from " + shared + " (other users may write there, mode 0777");
        try (Stream<Path> left = Files.list(shared)) {
            assertEquals(0, left.count(), "nothing written");
        }
        Files.setAttribute(shared, "unix:mode", 01777); // as /tmp
        NativeAvailability sticky = load(shared, library());
        assertTrue(sticky.isAvailable(), sticky.reason());
    }

    @Test
    void aReadOnlyDirectoryIsNamedAsSuch() throws Exception {
        Path directory = mount("ro");
        assertReason(load(directory, library()), directory + " (it is on a read-only file system)");
    }

    @Test
    void aFullDirectoryIsNamedAsSuchAndNoPartialFileIsLeft() throws Exception {
        Path directory = mount("size=8k");
        assertReason(load(directory, library()), directory + " (its file system is full)");
        assertEquals(List.of(), listing(directory));
    }

    @Test
    void aNoexecDirectoryIsNamedAsSuch() throws Exception {
        Path directory = mount("noexec");
        assertReason(load(directory, library()), directory + " is mounted noexec");
        assertEquals(List.of(), listing(directory));
    }

    @Test
    void aTruncatedLibraryIsReportedWithTheLoadersWords() throws IOException {
        byte[] library = library();
        NativeAvailability truncated = load(scratch, Arrays.copyOf(library, library.length / 3));
        assertFalse(truncated.isAvailable());
        assertTrue(
                truncated.reason().startsWith("the native library " + RESOURCE + " does not load: "),
                truncated.reason());
        assertEquals(List.of(), listing(scratch));
    }

    @Test
    void aLibraryForAnotherArchitectureIsReportedWithTheLoadersWords() throws IOException {
        String other = PLATFORM.endsWith("x86_64") ? "linux-aarch64" : "linux-x86_64";
        byte[] foreign;
        try (InputStream in = NativeTcp.class.getResourceAsStream("/META-INF/native/" + other + "/libtcpsight.so")) {
            if (in == null) {
                requireInCi("no " + other + " library was built (the cross compiler is missing)");
                return;
            }
            foreign = in.readAllBytes();
        }
        NativeAvailability loaded = load(scratch, foreign);
        assertFalse(loaded.isAvailable());
        assertTrue(loaded.reason().contains("does not load: "), loaded.reason());
        assertTrue(loaded.reason().contains("ELF"), "the loader's own words name the ELF mismatch: " + loaded.reason());
    }

    private static void assertReason(NativeAvailability availability, String expected) {
        assertFalse(availability.isAvailable());
        assertTrue(availability.reason().contains(expected), availability.reason());
        assertTrue(
                availability.reason().contains("-D" + PrivateExtraction.DIRECTORY_PROPERTY + "="),
                availability.reason());
    }

    private static NativeAvailability load(Path directory, byte[] library) {
        NativeAvailability availability =
                NativeTcp.loadFrom(PLATFORM, RESOURCE, new ByteArrayInputStream(library), directory);
        System.out.println("native load from " + directory + ": " + availability);
        return availability;
    }

    private static byte[] library() throws IOException {
        try (InputStream in = NativeTcp.class.getResourceAsStream(RESOURCE)) {
            assertTrue(in != null, "the build puts " + RESOURCE + " on the test classpath");
            return in.readAllBytes();
        }
    }

    private static List<String> listing(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(file -> file.getFileName().toString()).collect(Collectors.toList());
        }
    }

    private Path mount(String options) throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            requireInCi("mounting a tmpfs needs root");
        }
        Path directory = Files.createDirectory(scratch.resolve("mount"));
        run("mount", "-t", "tmpfs", "-o", options, "tcpsight-test", directory.toString());
        mounted = directory;
        return directory;
    }

    /** Skipped here; in CI a failure (NoSkipsInCi). */
    private static void requireInCi(String why) {
        assumeTrue(false, "skipped: " + why);
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            fail(String.join(" ", command) + " failed: " + output);
        }
    }
}
