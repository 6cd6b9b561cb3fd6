package io.tcpsight.connect.internal.settings;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpsight.internal.config.SettingKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists every plugin key with its real default. */
class ConnectSettingsDocTest {
    @Test
    void everyPluginKeyIsDocumentedWithItsDefault() throws Exception {
        String doc = new String(Files.readAllBytes(Paths.get("../docs/configuration.md")), StandardCharsets.UTF_8);
        for (SettingKey<?> key : ConnectSettings.ALL) {
            String text = key.defaultText();
            String row = "| `" + key.name() + "` | " + (text.isEmpty() ? "(" : text + " |");
            assertTrue(doc.contains(row), key.name() + " with default " + text);
        }
    }
}
