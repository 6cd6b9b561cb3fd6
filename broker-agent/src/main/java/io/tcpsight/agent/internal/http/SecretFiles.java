package io.tcpsight.agent.internal.http;

import io.tcpsight.internal.config.InvalidSettingException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

/** Secrets the endpoint reads from files: a token, user:password, a key store's password. */
final class SecretFiles {
    private SecretFiles() {}

    /** The first line of a secret file; the error names the file, never its content. */
    static String firstLine(String key, String path, String allowed) {
        try {
            List<String> lines = Files.readAllLines(Paths.get(path), StandardCharsets.UTF_8);
            String first = lines.isEmpty() ? "" : lines.get(0).trim();
            if (first.isEmpty()) {
                throw new InvalidSettingException(key, path, allowed + " (the first line is empty)");
            }
            return first;
        } catch (IOException unreadable) {
            throw new InvalidSettingException(key, path, allowed + " (" + unreadable + ")");
        }
    }
}
