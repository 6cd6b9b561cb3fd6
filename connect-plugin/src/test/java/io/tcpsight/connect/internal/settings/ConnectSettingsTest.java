package io.tcpsight.connect.internal.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class ConnectSettingsTest {
    @Test
    void defaultsWhenNothingIsSet() {
        ConnectSettings settings = ConnectSettings.from(Map.of(), ConnectSettings.POLICY_KEYS);
        assertEquals("All", settings.get(ConnectSettings.OVERRIDE_POLICY));
        assertEquals(true, settings.get(ConnectSettings.STARTUP_PACING));
    }

    @Test
    void aBadValueNamesTheKeyTheValueAndWhatIsAllowed() {
        ConfigException error = assertThrows(
                ConfigException.class,
                () -> ConnectSettings.from(
                        Map.of("tcpsight.startup.max.clients.per.second", "fast"), ConnectSettings.POLICY_KEYS));
        assertTrue(error.getMessage().contains("tcpsight.startup.max.clients.per.second"), error.getMessage());
        assertTrue(error.getMessage().contains("fast"), error.getMessage());
        assertTrue(error.getMessage().contains("from 0.1 to 100000"), error.getMessage());
    }

    @Test
    void aPolicyNameIsOneOfConnectsAndCaseDoesNotMatter() {
        assertEquals(
                "None",
                ConnectSettings.from(Map.of("tcpsight.override.policy", "none"), ConnectSettings.POLICY_KEYS)
                        .get(ConnectSettings.OVERRIDE_POLICY));
        ConfigException error = assertThrows(
                ConfigException.class,
                () -> ConnectSettings.from(Map.of("tcpsight.override.policy", "Some"), ConnectSettings.POLICY_KEYS));
        assertTrue(error.getMessage().contains("one of All, Principal, None"), error.getMessage());
    }

    @Test
    void sharedKeysAreCheckedToo() {
        ConfigException error = assertThrows(
                ConfigException.class,
                () -> ConnectSettings.from(
                        Map.of("tcpsight.sample.interval.ms", "-5"), ConnectSettings.EXTENSION_KEYS));
        assertTrue(error.getMessage().contains("tcpsight.sample.interval.ms"), error.getMessage());
    }
}
