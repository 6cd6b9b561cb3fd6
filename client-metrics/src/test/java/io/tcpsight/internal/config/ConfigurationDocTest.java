package io.tcpsight.internal.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists every key with its real default and range. */
class ConfigurationDocTest {

    @Test
    void everyKeyIsDocumentedWithItsDefault() throws Exception {
        String doc = new String(Files.readAllBytes(Paths.get("../docs/configuration.md")), StandardCharsets.UTF_8);
        for (SettingKey<?> key : TcpsightConfig.KEYS) {
            assertTrue(
                    doc.contains("| `" + key.name() + "` | " + key.defaultText() + " |"),
                    key.name() + " with default " + key.defaultText());
        }
    }
}
