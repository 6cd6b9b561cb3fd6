package io.tcpsight.doctor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/** A {@code --command-config} file as properties, for every command that takes one; its errors name the option and the file. */
public final class CommandConfigFile {
    private CommandConfigFile() {}

    /** The file's properties; none where no file was given. An unreadable file is an IllegalArgumentException that says why. */
    public static Properties read(Path file) {
        Properties config = new Properties();
        if (file == null) {
            return config;
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--command-config: " + file + " is not a readable file");
        }
        try (InputStream in = Files.newInputStream(file)) {
            config.load(in);
        } catch (IOException | IllegalArgumentException unreadable) {
            throw new IllegalArgumentException(
                    "--command-config: " + file + " cannot be read as properties: " + unreadable.getMessage());
        }
        return config;
    }
}
