package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The platform a line names, and what to do where the jar has no library for it. */
class RuntimePlatformTest {

    @Test
    void theCLibraryIsToldByTheFilesTheProcessMapped(@TempDir Path scratch) throws Exception {
        // the JVM of eclipse-temurin:21-jre-alpine (apache/kafka's base) runs under musl's loader
        assertEquals(
                "musl libc",
                RuntimePlatform.libc("7f3c4a1b2000-7f3c4a1c7000 r-xp 00014000 00:2f 1054 /lib/ld-musl-x86_64.so.1"));
        assertEquals(
                "musl libc",
                RuntimePlatform.libc("ffff8c3a0000-ffff8c43d000 r-xp 00000000 00:2f 33 /lib/libc.musl-aarch64.so.1"));
        assertEquals(
                "glibc",
                RuntimePlatform.libc(
                        "7f56d3e28000-7f56d3fbd000 r-xp 00028000 08:01 2621 /usr/lib/x86_64-linux-gnu/libc.so.6"));
        assertEquals(
                "glibc",
                RuntimePlatform.libc("7f1b2c000000-7f1b2c1b9000 r-xp 00000000 fd:00 8391 /usr/lib64/libc-2.28.so"));
        assertEquals(
                RuntimePlatform.UNKNOWN_LIBC,
                RuntimePlatform.libc("7f1b2c000000-7f1b2c1b9000 r-xp 00000000 fd:00 1 /usr/lib64/libz.so.1"));

        Path maps = Files.write(
                scratch.resolve("maps"),
                List.of(
                        "55d0c8a00000-55d0c8a01000 r-xp 00000000 00:2f 20 /opt/java/openjdk/bin/java",
                        "7f3c4a1b2000-7f3c4a1c7000 r-xp 00014000 00:2f 1054 /lib/ld-musl-x86_64.so.1"));
        assertEquals("musl libc", RuntimePlatform.libc(maps));
        assertEquals(RuntimePlatform.UNKNOWN_LIBC, RuntimePlatform.libc(scratch.resolve("absent")));
        assertNotEquals(
                RuntimePlatform.UNKNOWN_LIBC, RuntimePlatform.libc(Path.of("/proc/self/maps")), "this JVM's own");
    }

    @Test
    void aJarBuiltForItsBuildMachineOnlySaysSoAndWhichToInstall() {
        assertEquals(
                "this jar has no native library for linux-aarch64 (looked for /META-INF/native/linux-aarch64/libtcpsight.so):"
                        + " it was built for linux-x86_64 only (-Dtcpsight.native.platforms=host); install one built for"
                        + " every platform, which carries linux-x86_64 and linux-aarch64",
                NativeTcp.missingLibrary(
                        "linux-aarch64", "/META-INF/native/linux-aarch64/libtcpsight.so", List.of("linux-x86_64")));
    }

    @Test
    void theLineNamesWhereItRunsWhyWhatToDoAndWhatGoesWithout() {
        NativeAvailability missing = NativeAvailability.unavailable(
                "linux-riscv64",
                "this jar has no native library for linux-riscv64: do this",
                "Linux riscv64, musl libc");
        assertEquals(
                "tcpsight agent: no TCP_INFO on Linux riscv64, musl libc: this jar has no native library for"
                        + " linux-riscv64: do this; without it connections are not read",
                missing.unavailableLine("tcpsight agent", "connections are not read"));
        assertEquals(
                "unavailable on Linux riscv64, musl libc: this jar has no native library for linux-riscv64: do this",
                missing.toString());
    }

    @Test
    void theJarBuiltHereCarriesWhatTheBuildWasAskedFor() {
        // the default build carries both; a build with -Dtcpsight.native.platforms=host this machine's only
        assertTrue(
                NativeTcp.carried().contains(NativeTcp.platform()),
                NativeTcp.carried().toString());
    }
}
