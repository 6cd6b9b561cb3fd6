package io.tcpsight.internal.tcp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.Optional;

/**
 * Checks a shared library's bytes before the dynamic loader maps them. The loader trusts the ELF
 * headers: a library cut short maps pages past its end, and touching them kills the JVM with
 * SIGBUS inside ld.so. So the library must be a 64-bit little-endian ELF for this machine whose
 * every segment and section table lies inside the file.
 */
final class ElfImage {
    private static final Map<String, Integer> MACHINES = Map.of("x86_64", 62, "aarch64", 183);
    private static final Map<Integer, String> ARCHITECTURES = Map.of(62, "x86_64", 183, "aarch64", 3, "x86", 40, "arm");
    private static final int HEADER_BYTES = 64;
    private static final int PROGRAM_HEADER_BYTES = 56;

    private ElfImage() {}

    /** Why {@code image} must not be handed to the dynamic loader on {@code platform} (linux-ARCH), or empty. */
    static Optional<String> problem(byte[] image, String platform) {
        if (image.length < HEADER_BYTES || image[0] != 0x7f || image[1] != 'E' || image[2] != 'L' || image[3] != 'F') {
            return Optional.of("is not an ELF shared library (" + image.length + " bytes)");
        }
        if (image[4] != 2 || image[5] != 1) {
            return Optional.of("is not a 64-bit little-endian ELF library");
        }
        ByteBuffer elf = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        int machine = Short.toUnsignedInt(elf.getShort(18));
        String arch = platform.substring(platform.indexOf('-') + 1);
        Integer expected = MACHINES.get(arch);
        if (expected != null && machine != expected) {
            return Optional.of("is an ELF library for " + ARCHITECTURES.getOrDefault(machine, "machine " + machine)
                    + ", this JVM runs on " + arch);
        }
        long programHeaders = elf.getLong(32);
        int programHeaderCount = Short.toUnsignedInt(elf.getShort(56));
        long sectionHeaders = elf.getLong(40);
        long sectionTableEnd =
                sectionHeaders + (long) Short.toUnsignedInt(elf.getShort(58)) * Short.toUnsignedInt(elf.getShort(60));
        long needed = Math.max(programHeaders + (long) PROGRAM_HEADER_BYTES * programHeaderCount, sectionTableEnd);
        if (needed > image.length || programHeaders < 0 || sectionHeaders < 0) {
            return Optional.of(truncated(image, needed));
        }
        for (int index = 0; index < programHeaderCount; index++) {
            int header = (int) programHeaders + index * PROGRAM_HEADER_BYTES;
            long end = elf.getLong(header + 8) + elf.getLong(header + 32);
            if (end > image.length || end < 0) {
                return Optional.of(truncated(image, end));
            }
        }
        return Optional.empty();
    }

    private static String truncated(byte[] image, long needed) {
        return "is a truncated ELF library: " + image.length + " bytes, its headers need " + needed;
    }
}
