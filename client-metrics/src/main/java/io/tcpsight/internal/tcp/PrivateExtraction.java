package io.tcpsight.internal.tcp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;

/**
 * Where tcpsight writes the files it carries inside its jars (the JNI library, the agent's hook
 * classes), and how: each in a new file that only this user can read (0600, as
 * {@link Files#createTempFile} makes it, and never recreated), complete or not at all. A directory
 * that cannot take the file gets a reason a person can act on.
 */
public final class PrivateExtraction {
    /** The JVM system property that moves extraction away from {@code java.io.tmpdir}. */
    public static final String DIRECTORY_PROPERTY = "tcpsight.extract.dir";

    private PrivateExtraction() {}

    /** {@code -Dtcpsight.extract.dir}, else {@code java.io.tmpdir}. */
    public static Path directory() {
        String configured = System.getProperty(DIRECTORY_PROPERTY);
        return Paths.get(
                configured != null && !configured.isEmpty()
                        ? configured
                        : System.getProperty("java.io.tmpdir", "/tmp"));
    }

    /**
     * A new private file in {@code directory} holding all of {@code content}, written into the
     * file {@link Files#createTempFile} made 0600 (never recreated, so it stays 0600).
     *
     * @throws ExtractionFailedException naming the directory and why it could not take the file;
     *     no partial file is left behind
     */
    public static Path write(Path directory, String prefix, String suffix, byte[] content) {
        Optional<String> shared = sharedDirectory(directory);
        if (shared.isPresent()) {
            throw new ExtractionFailedException(shared.get(), null);
        }
        Path file;
        try {
            file = Files.createTempFile(directory, prefix, suffix);
        } catch (IOException | RuntimeException failure) {
            throw new ExtractionFailedException(cannotWrite(directory, failure), failure);
        }
        try {
            Files.write(file, content);
        } catch (IOException | RuntimeException failure) {
            deleteQuietly(file);
            throw new ExtractionFailedException(cannotWrite(directory, failure), failure);
        }
        return file;
    }

    /** Why a file could not be written into {@code directory}: read-only, full, missing, or the error itself. */
    static String cannotWrite(Path directory, Throwable failure) {
        String message = String.valueOf(failure.getMessage());
        String why;
        if (message.contains("Read-only file system")) {
            why = "it is on a read-only file system";
        } else if (message.contains("No space left on device") || message.contains("Disk quota exceeded")) {
            why = "its file system is full";
        } else if (!Files.isDirectory(directory)) {
            why = "it does not exist";
        } else if (!Files.isWritable(directory)) {
            why = "this user may not write there";
        } else {
            why = failure.toString();
        }
        return "cannot write into " + directory + " (" + why + "); " + advice();
    }

    /**
     * Why {@code directory} may not take a library that this JVM then loads: another user could swap
     * the file between its write and its load. That is so when another user owns the directory, or
     * when others may write into it without the sticky bit (which, as on /tmp, keeps them from
     * renaming or deleting a file they do not own). Empty when it is safe or cannot be told (no
     * POSIX attributes: the load goes on as before).
     */
    static Optional<String> sharedDirectory(Path directory) {
        int mode;
        int owner;
        int self;
        try {
            mode = (Integer) Files.getAttribute(directory, "unix:mode");
            owner = (Integer) Files.getAttribute(directory, "unix:uid");
            self = (Integer) Files.getAttribute(Paths.get("/proc/self"), "unix:uid");
        } catch (IOException | RuntimeException unknown) {
            return Optional.empty();
        }
        if (owner != self && owner != 0) {
            return Optional.of("will not load a library from " + directory + " (it belongs to another user, uid "
                    + owner + "); " + advice());
        }
        boolean othersWrite = (mode & 0022) != 0;
        boolean sticky = (mode & 01000) != 0;
        if (othersWrite && !sticky) {
            return Optional.of("will not load a library from " + directory + " (other users may write there, mode "
                    + String.format("%04o", mode & 07777) + " without the sticky bit); " + advice());
        }
        return Optional.empty();
    }

    /** Why a library written into {@code directory} could not be mapped, when the mount forbids it. */
    public static Optional<String> noexecReason(Path directory) {
        return mountOptions(directory)
                .filter(options -> List.of(options.split(",")).contains("noexec"))
                .map(options ->
                        directory + " is mounted noexec, so a library there cannot be mapped executable; " + advice());
    }

    private static String advice() {
        return "set -D" + DIRECTORY_PROPERTY + "= to a private directory on a writable, exec-allowed file system";
    }

    /** The per-mount options of the mount that holds {@code path}, from /proc/self/mountinfo. */
    static Optional<String> mountOptions(Path path) {
        String target;
        try {
            target = path.toRealPath().toString();
            List<String> mounts = Files.readAllLines(Paths.get("/proc/self/mountinfo"), StandardCharsets.UTF_8);
            String bestPoint = null;
            String bestOptions = null;
            for (String line : mounts) {
                String[] fields = line.split(" ");
                if (fields.length < 6) {
                    continue;
                }
                String point = fields[4].replace("\\040", " ");
                boolean holds = target.equals(point)
                        || point.equals("/")
                        || target.startsWith(point.endsWith("/") ? point : point + "/");
                // The last of equally long mount points is the one on top.
                if (holds && (bestPoint == null || point.length() >= bestPoint.length())) {
                    bestPoint = point;
                    bestOptions = fields[5];
                }
            }
            return Optional.ofNullable(bestOptions);
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
    }

    /** Removes a file this class wrote; a failure to remove it is not worth a line. */
    public static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException | RuntimeException ignored) {
            // a leftover private file is harmless; the reason that matters was already kept
        }
    }

    /** The file could not be extracted; the message says where, why, and what to set. */
    public static final class ExtractionFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ExtractionFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
