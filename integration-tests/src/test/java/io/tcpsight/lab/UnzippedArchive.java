package io.tcpsight.lab;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;

/**
 * A distribution zip as an operator unzips it (the doctor's, the Connect plugin's), so that the lab
 * runs what ships and not the build's folders beside it. Unzipped once per test JVM, afresh, under
 * the lab's work folder.
 */
final class UnzippedArchive {
    private static final Map<Path, Path> UNZIPPED = new HashMap<>();

    private UnzippedArchive() {}

    /**
     * The folder the zip was unzipped into; a folder that does not exist when there is no zip, so
     * that the prerequisite checks name what is missing.
     */
    static synchronized Path of(Path zip) {
        Path folder = LabPaths.work()
                .resolve("unzipped")
                .resolve(zip.getFileName().toString().replaceAll("\\.zip$", ""))
                .toAbsolutePath();
        if (UNZIPPED.containsKey(zip)) {
            return folder;
        }
        try {
            deleteTree(folder); // a missing zip leaves no earlier run's tree to pass the prerequisite checks
            if (!Files.isRegularFile(zip)) {
                return folder;
            }
            Files.createDirectories(folder);
            try (ZipFile archive = ZipFile.builder().setPath(zip).get()) {
                for (ZipArchiveEntry entry : Collections.list(archive.getEntries())) {
                    Path target = folder.resolve(entry.getName()).normalize();
                    if (!target.startsWith(folder)) {
                        throw new IOException(zip + " holds an entry outside its folder: " + entry.getName());
                    }
                    if (entry.isDirectory()) {
                        Files.createDirectories(target);
                    } else {
                        Files.createDirectories(target.getParent());
                        try (InputStream in = archive.getInputStream(entry)) {
                            copy(in, target);
                        }
                        // as unzip does: an entry the archive marks executable (the doctor's bin/tcpsight) stays so
                        if ((entry.getUnixMode() & 0100) != 0) {
                            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
                        }
                    }
                }
            }
        } catch (IOException failed) {
            throw new UncheckedIOException("unzipping " + zip + " into " + folder, failed);
        }
        UNZIPPED.put(zip, folder);
        return folder;
    }

    private static void copy(InputStream entry, Path target) throws IOException {
        Files.copy(entry, target, StandardCopyOption.REPLACE_EXISTING);
    }

    private static void deleteTree(Path folder) throws IOException {
        if (!Files.exists(folder)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(folder)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        }
    }
}
