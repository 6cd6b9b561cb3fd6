package io.tcpsight.internal.config;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** Masks every value whose key could hold a secret, before anything is logged or shown. */
public final class SecretMasking {
    public static final String MASK = "[hidden]";
    /**
     * Parts of a key that mark its value as secret, in Kafka's, Connect's and common plugins' keys:
     * {@code *.password}, {@code ssl.key.password}, {@code ssl.keystore.key} (a PEM private key),
     * {@code sasl.jaas.config}, {@code *.client.secret}, {@code *.passphrase}, {@code *.private.key},
     * {@code basic.auth.user.info}, {@code *api.key}, {@code aws.secret.access.key},
     * {@code *.token}, {@code *.credentials}. Masking a key that holds no secret costs nothing.
     */
    private static final String[] SECRET_WORDS = {
        "password",
        "passwd",
        "secret",
        "jaas",
        "ssl.key",
        "token",
        "credential",
        "passphrase",
        "private.key",
        "privatekey",
        "user.info",
        "api.key",
        "apikey",
        "access.key"
    };

    private SecretMasking() {}

    public static boolean isSecret(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        for (String word : SECRET_WORDS) {
            if (lower.contains(word)) {
                return true;
            }
        }
        return false;
    }

    /** A sorted copy with secret values replaced. */
    public static Map<String, String> mask(Map<String, ?> config) {
        Map<String, String> masked = new TreeMap<>();
        config.forEach((key, value) -> masked.put(key, isSecret(key) ? MASK : String.valueOf(value)));
        return masked;
    }
}
