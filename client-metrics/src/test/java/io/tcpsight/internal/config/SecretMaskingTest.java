package io.tcpsight.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Secret-holding keys that Kafka, Connect and common plugins define, and ordinary ones that must stay readable. */
class SecretMaskingTest {
    private static final List<String> SECRET_KEYS = List.of(
            "sasl.jaas.config",
            "ssl.key.password",
            "ssl.keystore.password",
            "ssl.truststore.password",
            "ssl.keystore.key",
            "sasl.oauthbearer.client.credentials.client.secret",
            "sasl.login.callback.handler.secret",
            "producer.override.sasl.jaas.config",
            "consumer.ssl.key.password",
            "source.cluster.sasl.jaas.config",
            "basic.auth.user.info",
            "value.converter.basic.auth.user.info",
            "schema.registry.basic.auth.user.info",
            "confluent.license.api.key",
            "datadog.apikey",
            "aws.secret.access.key",
            "aws.access.key.id",
            "connection.password",
            "ssh.private.key",
            "snowflake.private.key.passphrase",
            "github.access.token",
            "gcs.credentials.json",
            "database.PASSWORD");
    private static final List<String> ORDINARY_KEYS = List.of(
            "bootstrap.servers",
            "client.id",
            "receive.buffer.bytes",
            "group.id",
            "security.protocol",
            "sasl.mechanism",
            "topics",
            "tasks.max");

    @Test
    void everySecretKeyIsMasked() {
        for (String key : SECRET_KEYS) {
            assertTrue(SecretMasking.isSecret(key), key);
        }
    }

    @Test
    void ordinaryKeysStayReadable() {
        for (String key : ORDINARY_KEYS) {
            assertFalse(SecretMasking.isSecret(key), key);
        }
    }

    @Test
    void aMaskedConfigHoldsNoSecretValue() {
        Map<String, Object> config = new TreeMap<>();
        SECRET_KEYS.forEach(key -> config.put(key, "s3cr3t-" + key));
        ORDINARY_KEYS.forEach(key -> config.put(key, "plain-" + key));

        Map<String, String> masked = SecretMasking.mask(config);

        assertEquals(config.keySet(), masked.keySet());
        assertFalse(masked.toString().contains("s3cr3t"), masked.toString());
        ORDINARY_KEYS.forEach(key -> assertEquals("plain-" + key, masked.get(key)));
    }
}
