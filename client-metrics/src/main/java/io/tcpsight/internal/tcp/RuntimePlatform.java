package io.tcpsight.internal.tcp;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Which platform this JVM runs on: the key of its native library in the jar, and the same in
 * words for a person (the operating system, the architecture and, on Linux, the C library).
 */
final class RuntimePlatform {
    /** The platforms the jar carries a library for, each serving glibc and musl alike. */
    static final List<String> SHIPPED = List.of("linux-x86_64", "linux-aarch64");

    private RuntimePlatform() {}

    /** e.g. linux-x86_64: the folder of the jar's native library for this JVM. */
    static String key() {
        String os = System.getProperty("os.name", "unknown")
                .toLowerCase(Locale.ROOT)
                .replace(' ', '-');
        return os + "-" + arch();
    }

    /** x86_64, aarch64, or the JVM's own name of another. */
    static String arch() {
        String arch = System.getProperty("os.arch", "unknown").toLowerCase(Locale.ROOT);
        if (arch.equals("amd64") || arch.equals("x86_64")) {
            return "x86_64";
        }
        return arch.equals("arm64") ? "aarch64" : arch;
    }

    /** e.g. "Linux aarch64, musl libc", or "Mac OS X aarch64". */
    static String describe() {
        String os = System.getProperty("os.name", "unknown");
        String described = os + " " + arch();
        return os.equals("Linux") ? described + ", " + libc(Path.of("/proc/self/maps")) : described;
    }

    /** The C library mapped into this process, as {@link #libc(String)} tells it from the maps file. */
    static String libc(Path maps) {
        try (BufferedReader lines = Files.newBufferedReader(maps, StandardCharsets.ISO_8859_1)) {
            String line;
            while ((line = lines.readLine()) != null) {
                String found = libc(line);
                if (!found.equals(UNKNOWN_LIBC)) {
                    return found;
                }
            }
            return UNKNOWN_LIBC;
        } catch (IOException | RuntimeException unreadable) {
            return UNKNOWN_LIBC;
        }
    }

    static final String UNKNOWN_LIBC = "C library unknown";

    /**
     * The C library a line of /proc/self/maps names: musl is its own loader,
     * /lib/ld-musl-&lt;arch&gt;.so.1 (Alpine links libc.musl-&lt;arch&gt;.so.1 to it); glibc's is libc.so.6.
     */
    static String libc(String mapsLine) {
        if (mapsLine.contains("/ld-musl-") || mapsLine.contains("/libc.musl-")) {
            return "musl libc";
        }
        if (mapsLine.endsWith("/libc.so.6") || mapsLine.matches(".*/libc-2\\.[0-9]+\\.so$")) {
            return "glibc";
        }
        return UNKNOWN_LIBC;
    }
}
