package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native build (src/main/c/Makefile, as Maven calls it) fails, naming what is missing and the
 * one option that builds for this machine alone, when a tool for a platform the jar ships is
 * missing: a jar without the other architecture's library would run there without TCP_INFO. Each
 * case is a dry run ({@code make -n}) of the same Makefile with one tool named as one that does
 * not exist; the probes and the errors are the Makefile's own, evaluated as in the build.
 */
class NativeBuildPlatformsTest {
    private static final Path MAKEFILE_DIR = Path.of("src", "main", "c");
    /** Where javac -h wrote the shim's header in this build (the pom's native.include). */
    private static final Path GENERATED = Path.of("target", "native", "include");

    private static final String HOST = hostArch();
    private static final String CROSS = HOST.equals("aarch64") ? "x86_64" : "aarch64";
    private static final String CROSS_PACKAGES = HOST.equals("aarch64")
            ? "gcc-x86-64-linux-gnu libc6-dev-amd64-cross"
            : "gcc-aarch64-linux-gnu libc6-dev-arm64-cross";
    private static final String HOST_ONLY =
            "to build for linux-" + HOST + " only, pass -Dtcpsight.native.platforms=host (make PLATFORMS=host)";

    @TempDir
    Path out;

    @Test
    void withoutTheCrossCompilerTheBuildFailsNamingItsPackagesAndTheHostOnlyOption() throws Exception {
        Run run = make("all", "TCPSIGHT_CROSS_CC=tcpsight-no-such-cc");
        assertEquals(2, run.exit, run.output);
        assertTrue(
                run.output.contains("cannot build every platform the jar ships: the linux-" + CROSS
                        + " library needs tcpsight-no-such-cc, which is not installed (apt-get install "
                        + CROSS_PACKAGES + ", or run integration-tests/lab/setup.sh);"),
                run.output);
        assertTrue(run.output.contains(HOST_ONLY), run.output);
    }

    /**
     * Unless told otherwise the build is for every platform: the Makefile's default, and the
     * property Maven passes it, whose default is all.
     */
    @Test
    void untoldTheBuildIsForEveryPlatform() throws Exception {
        Run run = make(null, "TCPSIGHT_CROSS_CC=tcpsight-no-such-cc");
        assertEquals(2, run.exit, run.output);
        assertTrue(run.output.contains("cannot build every platform the jar ships"), run.output);
        String pom = Files.readString(Path.of("pom.xml"));
        assertTrue(
                pom.contains("<tcpsight.native.platforms>all</tcpsight.native.platforms>"), "the property's default");
        String library = pom.substring(
                pom.indexOf("<id>native-library</id>"),
                pom.indexOf("</execution>", pom.indexOf("<id>native-library</id>")));
        assertTrue(library.contains("<argument>PLATFORMS=${tcpsight.native.platforms}</argument>"), library);
    }

    /** A cross compiler without its libc headers (a second package) cannot compile the shim. */
    @Test
    void aCrossCompilerThatCannotCompileTheShimFailsTheBuildNamingItsHeaders() throws Exception {
        Run run = make("all", "TCPSIGHT_CROSS_CC=false");
        assertEquals(2, run.exit, run.output);
        assertTrue(
                run.output.contains("the linux-" + CROSS + " library needs false with its libc headers, which it"
                        + " cannot find (apt-get install " + CROSS_PACKAGES + ");"),
                run.output);
    }

    @Test
    void withoutMuslGccTheBuildFailsNamingMuslTools() throws Exception {
        Run run = make("all", "TCPSIGHT_MUSL_CC=tcpsight-no-such-musl-gcc");
        assertEquals(2, run.exit, run.output);
        assertTrue(
                run.output.contains("the musl check needs tcpsight-no-such-musl-gcc, which is not installed"
                        + " (apt-get install musl-tools, or run integration-tests/lab/setup.sh);"),
                run.output);
        assertTrue(run.output.contains(HOST_ONLY), run.output);
    }

    @Test
    void withoutMuslsLibcTheBuildFailsNamingIt() throws Exception {
        // a musl-gcc that exists (any command), so that the libc is what is missing
        Run run = make("all", "TCPSIGHT_MUSL_CC=sh", "TCPSIGHT_MUSL_LIBC=/nonexistent/libc.so");
        assertEquals(2, run.exit, run.output);
        assertTrue(
                run.output.contains("the musl check needs musl's /nonexistent/libc.so, which is not there"),
                run.output);
    }

    /** Told to build for this machine alone, a missing cross compiler is no error, and the build says what it leaves out. */
    @Test
    void forTheHostAloneTheBuildGoesOnAndSaysWhatTheJarLacks() throws Exception {
        Run run = make("host", "TCPSIGHT_CROSS_CC=tcpsight-no-such-cc", "TCPSIGHT_MUSL_CC=tcpsight-no-such-musl-gcc");
        assertEquals(0, run.exit, run.output);
        assertTrue(
                run.output.contains(
                        "building linux-" + HOST + " only (tcpsight.native.platforms=host): this jar reads no"
                                + " TCP_INFO on linux-" + CROSS + ", and its library is not checked against musl"),
                run.output);
        assertTrue(run.output.contains("linux-" + HOST + "/libtcpsight.so"), run.output);
        assertFalse(run.output.contains("linux-" + CROSS + "/libtcpsight.so"), run.output);
    }

    @Test
    void anUnknownPlatformsValueIsRefusedNamingTheAllowedOnes() throws Exception {
        Run run = make("both");
        assertEquals(2, run.exit, run.output);
        assertTrue(run.output.contains("tcpsight.native.platforms is 'both': all (the default) or host"), run.output);
    }

    /**
     * The positive control: with the tools this build had, the same dry run plans both libraries. A
     * build for the host alone (no .platforms-all stamp) may lack the tools, so this case needs the
     * stamp a build for all leaves.
     */
    @Test
    void withTheToolsThisBuildHadBothLibrariesArePlanned() throws Exception {
        assumeTrue(
                Files.exists(GENERATED.resolve(".platforms-all")),
                "this build was for the host alone (-Dtcpsight.native.platforms=host), so its tools may be missing");
        Run run = make("all");
        assertEquals(0, run.exit, run.output);
        assertTrue(run.output.contains("linux-" + HOST + "/libtcpsight.so"), run.output);
        assertTrue(run.output.contains("linux-" + CROSS + "/libtcpsight.so"), run.output);
    }

    /** A dry run of the Makefile; platforms null leaves PLATFORMS to the Makefile's default. */
    private Run make(String platforms, String... variables) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(Arrays.asList(
                "make",
                "-n",
                "--no-print-directory",
                "-C",
                MAKEFILE_DIR.toString(),
                "JNI_HOME=" + System.getProperty("java.home"),
                "GEN=" + GENERATED.toAbsolutePath(),
                "OUT=" + out));
        if (platforms != null) {
            command.add("PLATFORMS=" + platforms);
        }
        command.addAll(Arrays.asList(variables));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "make did not end: " + command);
        return new Run(process.exitValue(), output);
    }

    private static String hostArch() {
        String arch = System.getProperty("os.arch");
        return arch.equals("amd64") ? "x86_64" : arch;
    }

    private static final class Run {
        final int exit;
        final String output;

        Run(int exit, String output) {
            this.exit = exit;
            this.output = output;
        }
    }
}
